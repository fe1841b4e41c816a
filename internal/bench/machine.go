package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"gometal.dev/gometal/internal/bootargs"
	"gometal.dev/gometal/internal/console"
	"gometal.dev/gometal/internal/gobuild"
	"gometal.dev/gometal/internal/initramfs"
	"gometal.dev/gometal/internal/kstats"
	"gometal.dev/gometal/internal/linesink"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// Kind is which kernel a boot uses.
type Kind string

const (
	Gometal Kind = "gometal"
	Linux   Kind = "linux"
)

// LinuxCmdline is the fixed part of Linux's command line on m: the console
// on the machine's UART, the initramfs's /init as the first process,
// reboot at once on a panic (which -no-reboot turns into QEMU exiting), no
// boot log.
func LinuxCmdline(m *machine.Machine) string {
	return "console=" + m.LinuxConsole + " rdinit=/init panic=-1 quiet"
}

// Prog is one guest program, built once and packed into its own initramfs.
type Prog struct {
	Name   string // e.g. "mandelbrot", "matmul-c"
	Binary string
	Initrd string
	Size   int64
}

// Machine knows how to boot either kernel with the same QEMU settings.
type Machine struct {
	Model   *machine.Machine // what QEMU emulates (internal/machine); nil: the default
	Accel   machine.Accel    // -accel ("": QEMU's default)
	QEMU    string
	Gometal string // gometal kernel ELF
	Linux   string // Linux image ("" when Linux runs are off)
	Mem     string
	Dir     string // scratch directory for binaries and initramfs files
	Root    string // the gometal module's directory (bench/ is in it)
	progs   map[string]*Prog
}

// BuildGo builds a package under bench/ (e.g. "./bench/mandelbrot") and
// packs it.
func (m *Machine) BuildGo(name, pkg string, flags ...string) (*Prog, error) {
	return m.BuildGoWith(name, pkg, nil, flags...)
}

// BuildGoWith is BuildGo with extra files packed into the initramfs.
func (m *Machine) BuildGoWith(name, pkg string, extras []initramfs.Mapping, flags ...string) (*Prog, error) {
	if p := m.progs[name]; p != nil {
		return p, nil
	}
	dir := filepath.Join(m.Dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var errb bytes.Buffer
	exe, err := gobuild.Build(context.Background(), gobuild.Options{Package: pkg, OutDir: dir, Flags: flags, Stderr: &errb, Dir: m.Root, Arch: m.model().Arch})
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, errb.String())
	}
	return m.pack(name, exe, extras)
}

// BuildC compiles a C file as a static Linux binary for the machine with -O2.
func (m *Machine) BuildC(name, src string) (*Prog, error) {
	if p := m.progs[name]; p != nil {
		return p, nil
	}
	cc, err := CrossCC(m.model().Arch)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(m.Dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	exe := filepath.Join(dir, name)
	cmd := exec.Command(cc, "-O2", "-static", "-o", exe, src)
	cmd.Dir = m.Root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s -O2 -static %s: %v\n%s", cc, src, err, out)
	}
	return m.pack(name, exe, nil)
}

// CrossCC finds Debian's C cross compiler for arch (riscv64-linux-gnu-gcc).
func CrossCC(arch *machine.Arch) (string, error) {
	p, err := exec.LookPath(arch.CrossCC)
	if err != nil {
		return "", fmt.Errorf("%s not found; install it with: sudo apt-get install %s (make bench does)", arch.CrossCC, arch.CrossCCPackage)
	}
	return p, nil
}

// model is the machine both kernels boot on.
func (m *Machine) model() *machine.Machine {
	if m.Model == nil {
		return machine.Default()
	}
	return m.Model
}

func (m *Machine) pack(name, exe string, extras []initramfs.Mapping) (*Prog, error) {
	st, err := os.Stat(exe)
	if err != nil {
		return nil, err
	}
	initrd := filepath.Join(filepath.Dir(exe), "initramfs.cpio")
	if err := initramfs.Create(initrd, exe, extras); err != nil {
		return nil, err
	}
	p := &Prog{Name: name, Binary: exe, Initrd: initrd, Size: st.Size()}
	if m.progs == nil {
		m.progs = map[string]*Prog{}
	}
	m.progs[name] = p
	return p, nil
}

// Spec is one boot.
type Spec struct {
	Kind       Kind
	Cores      int
	Mem        string // "" means the machine's
	Prog       *Prog
	Args       []string
	KernelArgs string // gometal options (stats, trace, sched=...); Linux ignores them
	Timeout    time.Duration
	// Stdin feeds the program's stdin and Stdout takes its stdout (nil:
	// nothing, and into Output). On gometal both travel on the virtio
	// console ports, as with gometal run; on Linux too with Ports (the
	// program must then move its stdio there: bench/stdio -ports).
	Stdin  io.Reader
	Stdout io.Writer
	Ports  bool
	// QEMU are extra QEMU arguments for both kernels (devices).
	QEMU []string
	// Mounts are host directories shared over virtio-9p, the same QEMU
	// devices for both kernels: gometal's KernelArgs must name them with
	// mount=TAG:/GUEST; on Linux the program mounts them itself.
	Mounts []qemu.Mount
	// Net gives both kernels the same virtio-net device (virtio-mmio) on
	// QEMU's user network, with published ports.
	Net *qemu.Net
	// Stop, when it delivers a signal, stops QEMU (a guest that no longer
	// answers the host's load).
	Stop <-chan os.Signal
}

// CPUStat is one hart's line of gometal's statistics.
type CPUStat = kstats.CPU

// Boot is what one boot produced.
type Boot struct {
	Spec     Spec
	Output   string
	Results  []map[string]any
	CPUs     []CPUStat
	Stats    *kstats.Stats // gometal's statistics (stats), if it printed them
	Policy   string
	PeakKiB  int    // gometal: peak page frames in use
	Top      string // gometal: its "most frequent system calls" line (stats)
	Wall     time.Duration
	ExitCode int
	TimedOut bool
	Err      error // nil when the program reported results and no error
}

// OK reports whether the boot produced results without errors.
func (b *Boot) OK() bool { return b.Err == nil }

// lockedBuffer collects output that QEMU and the stream relays write at
// the same time.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Why says in a few words why a boot failed.
func (b *Boot) Why() string {
	if b.Err == nil {
		return ""
	}
	return b.Err.Error()
}

// Config returns the QEMU configuration for a spec: the same machine, -smp
// and -m for both kernels; only the kernel and its command line differ.
func (m *Machine) Config(s Spec) qemu.Config {
	cfg := qemu.Config{Machine: m.model(), Binary: m.QEMU, SMP: s.Cores, Memory: s.Mem, Initrd: s.Prog.Initrd, Accel: m.Accel}
	if cfg.Memory == "" {
		cfg.Memory = m.Mem
	}
	var args []string
	for _, a := range s.Args {
		args = append(args, bootargs.Encode(a))
	}
	cfg.Extra = s.QEMU
	cfg.Net = s.Net
	switch s.Kind {
	case Gometal:
		// The devices gometal run adds: entropy and the stdio ports.
		cfg.Kernel, cfg.Entropy, cfg.StdioPorts = m.Gometal, true, true
		cfg.Mounts = s.Mounts
		cfg.Append = bootargs.Cmdline{Raw: s.KernelArgs, Args: s.Args}.String()
	case Linux:
		cfg.Kernel, cfg.StdioPorts = m.Linux, s.Ports
		cfg.Mounts = s.Mounts
		cfg.Append = strings.TrimSpace(LinuxCmdline(cfg.Machine) + " -- " + strings.Join(args, " "))
	}
	return cfg
}

// Run boots once and parses what the guest printed.
func (m *Machine) Run(s Spec) *Boot {
	b := &Boot{Spec: s}
	if s.Kind == Linux && m.Linux == "" {
		b.Err = fmt.Errorf("no Linux kernel")
		return b
	}
	out := &lockedBuffer{}
	lines := linesink.New(out) // the kernel's log and the program's output, a whole line at a time
	cfg := m.Config(s)
	stdio := qemu.Stdio{Stdout: lines.Stream(), Stderr: lines.Stream()}
	var streams *console.Streams
	if cfg.StdioPorts {
		in, sink := s.Stdin, s.Stdout
		if in == nil {
			in = strings.NewReader("")
		}
		if sink == nil {
			sink = lines.Stream()
		}
		var err error
		if streams, err = console.NewStreams(in, sink, lines.Stream()); err != nil {
			b.Err = err
			return b
		}
		stdio.Ports, stdio.Started = streams.QEMU, streams.Start
	}
	start := time.Now()
	res, err := qemu.Run(cfg, stdio, qemu.RunOptions{Timeout: s.Timeout, Signals: s.Stop})
	if streams != nil {
		streams.Wait()
	}
	lines.Flush()
	b.Wall = time.Since(start)
	b.Output = out.String()
	if err != nil {
		b.Err = fmt.Errorf("starting QEMU: %v", err)
		return b
	}
	b.ExitCode, b.TimedOut = res.ExitCode, res.TimedOut
	parseOutput(b, b.Output)
	switch {
	case b.Err != nil:
	case res.TimedOut:
		b.Err = fmt.Errorf("timed out after %s (last output: %s)", s.Timeout, lastLine(b.Output))
	case strings.Contains(b.Output, "gometal: kernel panic"):
		b.Err = fmt.Errorf("%s", linesFrom(b.Output, "gometal: kernel panic", 2))
	case strings.Contains(b.Output, "Kernel panic"):
		if f := linesFrom(b.Output, "fatal error:", 1); f != "" {
			b.Err = fmt.Errorf("the program died (%s), so Linux panicked: init exited", f)
		} else {
			b.Err = fmt.Errorf("Linux: %s", linesFrom(b.Output, "Kernel panic", 1))
		}
	case len(b.Results) == 0:
		if f := linesFrom(b.Output, "fatal error:", 1); f != "" {
			b.Err = fmt.Errorf("the program died: %s", f)
		} else {
			b.Err = fmt.Errorf("no results (QEMU exit status %d): %s", res.ExitCode, lastLine(b.Output))
		}
	}
	return b
}

// parseOutput reads results, gometal's statistics and its memory peak
// from a boot's console output.
func parseOutput(b *Boot, output string) {
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimRight(line, "\r")
		if i := strings.Index(line, "BENCH {"); i >= 0 {
			var r map[string]any
			if err := json.Unmarshal([]byte(line[i+6:]), &r); err == nil {
				b.Results = append(b.Results, r)
				if e, ok := r["error"]; ok && b.Err == nil {
					b.Err = fmt.Errorf("program error: %v", e)
				}
			}
		}
	}
	if st, err := kstats.Parse(output); err == nil {
		b.Stats = st
		b.CPUs, b.Policy, b.PeakKiB, b.Top = st.CPUs, st.Policy, st.Memory.PeakKiB, st.TopSyscalls()
	}
}

// linesFrom returns n lines starting at the first that contains sub,
// joined with " ", or "".
func linesFrom(s, sub string, n int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.Contains(l, sub) {
			end := min(i+n, len(lines))
			var out []string
			for _, x := range lines[i:end] {
				if x = strings.TrimSpace(x); x != "" {
					out = append(out, x)
				}
			}
			return strings.Join(out, " ")
		}
	}
	return ""
}

func lastLine(s string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if !strings.Contains(l, "terminating on signal") { // QEMU's own, when stopped
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "(no output)"
	}
	l := strings.TrimSpace(lines[len(lines)-1])
	if strings.HasPrefix(l, "Boot HART") || strings.HasPrefix(l, "Domain0") {
		return "nothing after the OpenSBI banner"
	}
	if len(l) > 160 {
		l = l[:160] + "…"
	}
	if l == "" {
		return "(no output)"
	}
	return l
}

// Num reads a numeric field of a result.
func Num(r map[string]any, key string) (float64, bool) {
	v, ok := r[key].(float64)
	return v, ok
}

// Str reads a string field of a result.
func Str(r map[string]any, key string) string {
	s, _ := r[key].(string)
	return s
}
