// Package bench is `gometal bench`: it builds the benchmark programs in
// bench/, boots each on gometal and — with Linux enabled — on Debian's
// Linux kernel in the same QEMU configuration (virt, same -smp, same -m,
// same initramfs with the program as /init), alternating the two kernels
// and repeating every configuration, and writes docs/benchmarks.md with
// medians, ratios and PNG plots.
package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"gometal.dev/gometal/internal/gobuild"
	"gometal.dev/gometal/internal/kstats"
	"gometal.dev/gometal/internal/linuxkernel"
	"gometal.dev/gometal/internal/machine"
)

// Options are `gometal bench`'s settings.
type Options struct {
	Names []string // benchmarks to run; empty means all
	Cores []int    // core counts for the scaling benchmarks
	Runs  int      // boots per configuration (medians are reported)
	Linux bool     // also boot Linux
	Quick bool     // small problem sizes
	Conns []int    // net's connection counts; nil: the default for Quick
	// Tap: net also measures bulk TCP through a tap device ("gmtap0",
	// 10.0.2.2/24 on the host side) — the whole run is then inside a
	// network namespace the bench command made (cmd/gometal/benchns.go).
	Tap      bool
	TapMQ    bool   // the tap is a multiqueue one: a queue pair per CPU
	Out      string // the Markdown report; plots go next to it
	Mem      string // -m for every boot
	Command  string // the command line, quoted in the report
	QEMU     string
	Kernel   string // gometal kernel ELF
	LinuxDir string // cache for the Linux kernel
	Log      io.Writer
	// Machine is what both kernels boot on; nil: machine.Default().
	Machine *machine.Machine
	Accel   machine.Accel // -accel for every boot of both kernels
}

// Section is one benchmark's part of the report.
type Section struct {
	Title string
	Body  string
	Notes []string // headline lines for the summary
}

type benchmark struct {
	name, title string
	plan        func(*Session) int // boots it will make (an estimate for bisection)
	run         func(*Session) Section
}

// Benchmarks lists every benchmark, in report order.
func Benchmarks() []string {
	var n []string
	for _, b := range all {
		n = append(n, b.name)
	}
	return n
}

var all []*benchmark // filled by the suite files' init functions, ordered by order

var order = []string{"mandelbrot", "arith", "matmul", "footprint", "gothreads", "micro", "placement", "balance", "wakelat", "stdio", "files", "devices", "blockdev", "net"}

func register(b *benchmark) {
	all = append(all, b)
	sort.SliceStable(all, func(i, j int) bool {
		return slices.Index(order, all[i].name) < slices.Index(order, all[j].name)
	})
}

// Session is one `gometal bench` invocation.
type Session struct {
	O        Options
	M        *Machine
	Kinds    []Kind // the kernels being compared
	LinuxK   *linuxkernel.Kernel
	LinuxWhy string // why Linux is not compared, if it is not
	OutDir   string

	done, total int
	started     time.Time
	benchName   string
	failures    []string // one line per failed boot, for the report
}

// MaxCores is the largest core count asked for.
func (s *Session) MaxCores() int { return slices.Max(s.O.Cores) }

// Boot runs one boot, printing progress before and after.
func (s *Session) Boot(spec Spec, what string) *Boot {
	s.done++
	if s.done > s.total {
		s.total = s.done
	}
	el := time.Since(s.started).Round(time.Second)
	fmt.Fprintf(s.O.Log, "[%3d/%-3d %8s] %-10s %-7s %s ... ", s.done, s.total, el, s.benchName, spec.Kind, what)
	b := s.M.Run(spec)
	if b.OK() {
		fmt.Fprintf(s.O.Log, "%.1fs\n", b.Wall.Seconds())
	} else {
		fmt.Fprintf(s.O.Log, "%.1fs FAILED: %s\n", b.Wall.Seconds(), b.Why())
		s.failures = append(s.failures, fmt.Sprintf("%s, %s, %s, after %.0f s: %s", s.benchName, spec.Kind, what, b.Wall.Seconds(), b.Why()))
	}
	return b
}

// Run runs the benchmarks and writes the report.
func Run(o Options) error {
	if o.Log == nil {
		o.Log = os.Stderr
	}
	var selected []*benchmark
	for _, b := range all {
		if len(o.Names) == 0 || slices.Contains(o.Names, b.name) {
			selected = append(selected, b)
		}
	}
	for _, n := range o.Names {
		if !slices.Contains(Benchmarks(), n) {
			return fmt.Errorf("unknown benchmark %q (have: %s)", n, strings.Join(Benchmarks(), ", "))
		}
	}
	tmp, err := os.MkdirTemp("", "gometal-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	s := &Session{O: o, Kinds: []Kind{Gometal}, OutDir: filepath.Dir(o.Out), started: time.Now()}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	// A private copy of the kernel: a rebuild in the checkout during a long
	// run must not change the kernel between boots.
	kernel := filepath.Join(tmp, "gometal-kernel")
	if err := copyFile(o.Kernel, kernel); err != nil {
		return err
	}
	s.M = &Machine{Model: o.Machine, Accel: o.Accel, QEMU: o.QEMU, Gometal: kernel, Mem: o.Mem, Dir: tmp, Root: root}
	if o.Linux {
		k, err := linuxkernel.Fetch(o.LinuxDir, o.Log)
		if err != nil {
			s.LinuxWhy = "fetching Debian's kernel failed: " + err.Error()
			fmt.Fprintf(o.Log, "gometal bench: %s; comparing nothing with Linux\n", s.LinuxWhy)
		} else {
			s.LinuxK, s.M.Linux = k, k.Image
			s.Kinds = append(s.Kinds, Linux)
			fmt.Fprintf(o.Log, "Linux kernel: %s (%s)\n", k.Package, k.Image)
		}
	} else {
		s.LinuxWhy = "Linux runs were not requested (run with -linux)"
	}
	if err := os.MkdirAll(s.OutDir, 0o755); err != nil {
		return err
	}
	envBefore := environment(s)
	for _, b := range selected {
		s.total += b.plan(s)
	}
	var sections []Section
	for _, b := range selected {
		s.benchName = b.name
		sec := b.run(s)
		sec.Title = b.title
		sections = append(sections, sec)
		// Write after every benchmark, so an interrupted run leaves a report.
		if err := writeReport(s, envBefore, sections); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.Log, "done in %s: %s\n", time.Since(s.started).Round(time.Second), o.Out)
	return nil
}

// LinuxConfigText says what the benchmark boot needs from Debian's kernel
// and how the package's config-* file provides it.
func LinuxConfigText(k *linuxkernel.Kernel) string {
	if k.Config == "" {
		return "\nThe Linux package has no config-* file, so what is built in was not checked.\n"
	}
	checks, err := linuxkernel.CheckConfig(k.Config)
	if err != nil {
		return fmt.Sprintf("\nReading the Linux config failed: %v\n", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nWhat the benchmark boot needs from Linux, from the package's `%s` (the initramfs holds\nonly `/init` and the modules an I/O benchmark's program loads itself: virtio_mmio for\nstdio, files and net, netfs, 9pnet, 9pnet_virtio and 9p for files, uio for devices, virtio_blk\nfor blockdev, failover, net_failover and virtio_net for net):\n\n", filepath.Base(k.Config))
	var rows [][]string
	for _, c := range checks {
		v := c.Value
		switch v {
		case "y":
			v = "y (built in)"
		case "m":
			v = "m (module)"
		case "":
			v = "not set"
		}
		rows = append(rows, []string{"`" + c.Option + "`", v, c.Why})
	}
	b.WriteString(table([]string{"option", "value", "for"}, rows))
	return b.String()
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// moduleRoot finds the gometal checkout, whose bench/ holds the programs.
func moduleRoot() (string, error) {
	root, err := gobuild.ModuleRoot()
	if err == nil {
		if _, err = os.Stat(filepath.Join(root, "bench", "mandelbrot")); err == nil {
			return root, nil
		}
	}
	return "", fmt.Errorf("gometal bench runs inside the gometal source checkout (it builds the programs in bench/)")
}

// environment describes the machine for the report.
func environment(s *Session) []string {
	var env []string
	env = append(env, "- Date: "+time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	env = append(env, fmt.Sprintf("- Host: %s, %d cores (runtime.NumCPU), %s RAM", cpuModel(), runtime.NumCPU(), memTotal()))
	env = append(env, "- Host load average at start: "+loadAvg())
	if out, err := exec.Command(s.O.QEMU, "--version").Output(); err == nil {
		env = append(env, "- QEMU: "+strings.SplitN(string(out), "\n", 2)[0]+" (TCG, `-M "+s.M.model().MachineArg()+"`)")
	}
	env = append(env, "- Go: "+runtime.Version())
	git := exec.Command("git", "rev-parse", "--short", "HEAD")
	git.Dir = s.M.Root
	if out, err := git.Output(); err == nil {
		env = append(env, "- gometal commit: "+strings.TrimSpace(string(out)))
	}
	if s.LinuxK != nil {
		env = append(env, fmt.Sprintf("- Linux: Debian %s `%s` %s (from the machine's configured Debian mirror)", linuxkernel.Suite, s.LinuxK.Package, s.LinuxK.Version))
	}
	if cc, err := CrossCC(s.M.model().Arch); err == nil {
		if out, err := exec.Command(cc, "--version").Output(); err == nil {
			env = append(env, "- C compiler: "+strings.SplitN(string(out), "\n", 2)[0])
		}
	}
	return env
}

func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func memTotal() string {
	data, _ := os.ReadFile("/proc/meminfo")
	var kb int
	fmt.Sscanf(string(data), "MemTotal: %d kB", &kb)
	return fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ") + " (1, 5, 15 min)"
}

func writeReport(s *Session, env []string, sections []Section) error {
	var b strings.Builder
	b.WriteString("# Benchmarks: gometal vs Linux\n\n")
	b.WriteString("Generated by `gometal bench` (internal/bench): rerun it rather than editing the\ntables; an Analysis section at the end, if there is one, was written by hand\nfor the run recorded here.\n")
	b.WriteString("Every figure is measured by the guest program itself with the guest clock, on\n")
	b.WriteString("gometal and on Debian's Linux kernel booted in the same QEMU configuration\n")
	b.WriteString("(`-M " + s.M.model().MachineArg() + "`, the same `-smp` and `-m " + s.O.Mem + "`, the same initramfs with the benchmark\n")
	b.WriteString("as `/init`); boots alternate between the kernels and every configuration is\n")
	fmt.Fprintf(&b, "repeated %d time(s); tables show medians.\n\n", s.O.Runs)
	b.WriteString("```\n" + s.O.Command + "\n```\n\n")
	b.WriteString("## The machine\n\n")
	b.WriteString(strings.Join(env, "\n") + "\n")
	b.WriteString("- Host load average at the end: " + loadAvg() + "\n")
	fmt.Fprintf(&b, "- Wall time of the run: %s\n", time.Since(s.started).Round(time.Second))
	if s.LinuxWhy != "" {
		b.WriteString("\n**Linux was not compared:** " + s.LinuxWhy + "\n")
	} else {
		fmt.Fprintf(&b, "- Linux command line: `%s -- ARGS`; gometal: `-- ARGS` (plus `stats` where accounting is shown)\n", LinuxCmdline(s.M.model()))
	}
	if s.LinuxK != nil {
		b.WriteString(LinuxConfigText(s.LinuxK))
	}
	b.WriteString("\nThe host has " + fmt.Sprint(runtime.NumCPU()) + " cores: QEMU runs one thread per virtual hart, so core\n")
	b.WriteString("counts above that share host cores and cannot scale, and other work on the host\n")
	b.WriteString("(the load average above) adds noise to every figure.\n\n")
	var notes []string
	for _, sec := range sections {
		notes = append(notes, sec.Notes...)
	}
	if len(notes) > 0 {
		b.WriteString("## Summary\n\n")
		b.WriteString("Ratios are of medians; where there is more than one run, the ratio of the\nbest runs (least disturbed by other work on the host) follows in parentheses.\n\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
		b.WriteString("\n")
	}
	for _, sec := range sections {
		b.WriteString("## " + sec.Title + "\n\n")
		b.WriteString(strings.TrimSpace(sec.Body) + "\n\n")
	}
	if len(s.failures) > 0 {
		b.WriteString("## Failed boots\n\nEvery boot that produced no result (medians above are over the others;\nthe bisection's failures are expected):\n\n")
		for _, f := range s.failures {
			b.WriteString("- " + f + "\n")
		}
		b.WriteString("\n")
	}
	return os.WriteFile(s.O.Out, []byte(b.String()), 0o644)
}

// median of the values (0 for none).
// samples collects values by key and reports medians or why none exist.
type samples struct {
	v    map[string][]float64
	fail map[string]string
}

func newSamples() *samples { return &samples{v: map[string][]float64{}, fail: map[string]string{}} }

func (s *samples) add(key string, x float64) { s.v[key] = append(s.v[key], x) }
func (s *samples) failed(key, why string) {
	if _, ok := s.fail[key]; !ok {
		s.fail[key] = why
	}
}

// med returns the median for key and whether there was any sample.
func (s *samples) med(key string) (float64, bool) {
	v := s.v[key]
	return kstats.Median(v), len(v) > 0
}

// best returns the smallest sample for key (the run least disturbed by
// other work on the host).
func (s *samples) best(key string) (float64, bool) {
	v := s.v[key]
	if len(v) == 0 {
		return 0, false
	}
	return slices.Min(v), true
}

// ratioBoth formats a/b of the medians and, in parentheses, of the best runs.
func (s *samples) ratioBoth(a, b string) string {
	r := s.ratio(a, b)
	x, ok1 := s.best(a)
	y, ok2 := s.best(b)
	if r == "—" || !ok1 || !ok2 || y == 0 || len(s.v[a]) < 2 {
		return r
	}
	return fmt.Sprintf("%s (%.2f)", r, x/y)
}

// cell formats the median for key, or says why it is missing.
func (s *samples) cell(key, format string) string {
	if m, ok := s.med(key); ok {
		return fmt.Sprintf(format, m)
	}
	if why, ok := s.fail[key]; ok {
		return "failed: " + why
	}
	return "—"
}

// ratio formats a/b for two keys.
func (s *samples) ratio(a, b string) string {
	x, ok1 := s.med(a)
	y, ok2 := s.med(b)
	if !ok1 || !ok2 || y == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", x/y)
}

// table renders a Markdown table.
func table(header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i == 0 {
			b.WriteString("---|")
		} else {
			b.WriteString("--:|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

func kib(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.0f KiB", float64(n)/1024)
	}
}
