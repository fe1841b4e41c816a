package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"gometal.dev/gometal/internal/bootargs"
	"gometal.dev/gometal/internal/console"
	"gometal.dev/gometal/internal/goexec"
	"gometal.dev/gometal/internal/initramfs"
	"gometal.dev/gometal/internal/kernelimage"
	"gometal.dev/gometal/internal/linesink"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// exitTimeout is the status for a run stopped by -timeout, as timeout(1).
const exitTimeout = 124

// runMain is `gometal run`: check inputs, find QEMU and the kernel, build
// the program, pack the initramfs, boot, and exit as the program did.
// Cheap checks come first so that mistakes are reported before any build.
func runMain(args []string) error {
	f, err := parseRunFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		runUsage(os.Stdout)
		return nil
	}
	if err != nil {
		return err
	}
	if isImage(f.target) {
		return runImage(f)
	}
	kind, err := classify(f.target)
	if err != nil {
		return inputError(err)
	}
	arch, err := programArch("run", f.arch, f.machine, f.target, kind)
	if err != nil {
		return err
	}
	m, err := f.machineFor("run", arch)
	if err != nil {
		return err
	}
	qemuBin, err := qemu.Find(f.qemu, arch)
	if err != nil {
		return inputError(err)
	}
	tmp, err := os.MkdirTemp("", "gometal-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// The program before the kernel: a bad build is reported at once,
	// even when the kernel would first have to be built.
	exe, err := program(context.Background(), f.target, f.tags, f.ldflags, kind, arch, tmp)
	if err != nil {
		return err
	}
	kernel, err := findKernel(f.kernel, arch)
	if err != nil {
		return err
	}
	initrd := filepath.Join(tmp, "initramfs.cpio")
	if err := initramfs.Create(initrd, exe, withZoneinfo(f.adds)); err != nil {
		return inputError(err)
	}
	cfg := qemu.Config{
		Machine: m, Binary: qemuBin, SMP: int(f.cores), Memory: f.mem,
		Kernel: kernel, Initrd: initrd, Append: cmdline(f), GDB: f.gdb,
		Extra:  f.devSel.QEMU,
		Mounts: qemuMounts(f.mounts),
		Accel:  chooseAccel("run", f.accel, arch),
	}
	cfg.Net = qemuNet(f.net, f.forwards)
	cfg.Machine = f.withVirtio(cfg.Machine)
	var symbols string
	if f.gdb {
		symbols, _ = kernelFinder(arch).Find(f.kernel) // the ELF behind the Image
	}
	return boot(cfg, bootOptions{verbose: f.verbose, gdb: f.gdb, symbols: symbols, timeout: f.timeout, grace: f.grace})
}

// withZoneinfo adds the Go distribution's time zone database at its own
// path, as exec does (goexec.ZoneinfoMapping), so time.LoadLocation works
// in a program that does not embed time/tzdata; an -add there wins.
func withZoneinfo(adds []initramfs.Mapping) []initramfs.Mapping {
	m, ok := goexec.ZoneinfoMapping(goroot())
	if !ok || slices.ContainsFunc(adds, func(a initramfs.Mapping) bool { return within(m.Guest, a.Guest) }) {
		return adds
	}
	return append(append([]initramfs.Mapping(nil), adds...), m)
}

// findMachine finds QEMU for arch and the kernel (exec and bench; run
// finds the kernel only after building the program, so that a bad program
// is reported first).
func findMachine(qemuFlag, kernelFlag string, arch *machine.Arch) (qemuBin, kernel string, err error) {
	if qemuBin, err = qemu.Find(qemuFlag, arch); err != nil {
		return "", "", inputError(err)
	}
	if kernel, err = findKernel(kernelFlag, arch); err != nil {
		return "", "", err
	}
	return qemuBin, kernel, nil
}

// findKernel wraps kernelimage.Find with the CLI's messages and statuses:
// a missing kernel, or one for another architecture, is a setup problem
// (2), a failed build is 1. It returns the kernel Image QEMU boots (made
// from the ELF cargo links) for arch's programs.
func findKernel(explicit string, arch *machine.Arch) (string, error) {
	k, err := kernelFinder(arch).Find(explicit)
	if errors.Is(err, kernelimage.ErrNotFound) {
		return "", inputError(err)
	}
	if err != nil {
		return "", err
	}
	if err := checkKernelArch(k, arch); err != nil {
		return "", inputError(err)
	}
	img, err := kernelimage.ImageFile(k)
	if err != nil {
		return "", inputError(err)
	}
	return img, nil
}

// kernelFinder finds arch's kernel for the CLI, telling the user when
// that means a cargo build.
func kernelFinder(arch *machine.Arch) *kernelimage.Finder {
	return kernelimage.NewFor(arch.Name, func() { fmt.Fprintf(os.Stderr, "gometal: building the %s kernel...\n", arch.Name) })
}

// checkKernelArch refuses a kernel built for another architecture than
// the program's (a -kernel or $GOMETAL_KERNEL… mix-up) in one line,
// instead of a boot that never prints anything.
func checkKernelArch(path string, arch *machine.Arch) error {
	got, err := kernelimage.ArchOf(path)
	if err != nil {
		return err
	}
	if got != arch.Name {
		return fmt.Errorf("kernel %s is for %s, the program for %s (set %s or -kernel to a %s kernel)",
			path, got, arch.Name, kernelimage.EnvFor(arch.Name), arch.Name)
	}
	return nil
}

// cmdline turns flags into the kernel command line: options, then the
// program's environment, then --, then its arguments.
func cmdline(f *runFlags) string {
	return bootargs.Cmdline{Options: f.kernelOptions(), Env: f.env, Raw: f.kernelArgs, Args: f.args}.String()
}

// bootOptions is what the commands that boot (run, exec) choose.
type bootOptions struct {
	verbose bool          // print the QEMU command line; show the firmware banner
	gdb     bool          // QEMU waits for a debugger: say how to attach
	symbols string        // the kernel ELF (its symbols), for the gdb hint
	timeout time.Duration // stop QEMU after this long (0: never)
	grace   time.Duration // after a stop signal, end the machine this long later (0: at a second)
}

// hostSignals are the signals gometal passes to the program, as Linux
// would deliver them to a process that received them.
var hostSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}

// boot runs QEMU on our own stdio and converts how it ended into gometal's
// exit status. The signals a Linux process would get (hostSignals) go to
// the program through the console's signal port; QEMU runs in a process
// group of its own, so a terminal's Ctrl-C reaches the program once. A
// program that does not end within -grace of a stop signal, or a second
// stop signal, ends the machine (qemu.RunOptions.Guest).
func boot(cfg qemu.Config, o bootOptions) error {
	if err := cfg.Validate(); err != nil {
		return inputError(err)
	}
	// A machine gometal's kernel does not boot on yet is one line, never
	// a boot that hangs (-arch and the ELF check say it earlier, better).
	if err := cfg.Machine.Check(); err != nil {
		return inputError(err)
	}
	// The kernel learns how its exit status reaches the host (an image
	// with its own command line, run without one, reports it on the console).
	if ka := cfg.Machine.ExitFor(cfg.Accel).KernelArgs(); len(ka) > 0 && cfg.Append != "" {
		cfg.Append = strings.Join(ka, " ") + " " + cfg.Append
	}
	if o.gdb {
		fmt.Fprintf(os.Stderr, "gometal: QEMU is waiting for a debugger; attach with:\n\tgdb-multiarch %s -ex 'target remote localhost:%d'\n",
			o.symbols, qemu.GDBPort)
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, hostSignals...)
	defer signal.Stop(sigs)

	// Where the status leaves on the console, gometal's exit status says it.
	hideExit := cfg.Machine.ExitFor(cfg.Accel) == machine.ExitConsole && !o.verbose
	stdio, streams, finish, err := consoleStdio(&cfg, o.verbose, hideExit)
	if err != nil {
		return err
	}
	if o.verbose {
		fmt.Fprintf(os.Stderr, "gometal: %s\n", qemu.ShellQuote(cfg.Args()))
	}
	res, err := qemu.Run(cfg, stdio, qemu.RunOptions{Timeout: o.timeout, Signals: sigs, Guest: streams.Signal, StopGrace: o.grace})
	finish()
	if err != nil {
		return fmt.Errorf("starting QEMU: %v", err)
	}
	return exitStatusOf(res, o.timeout)
}

// consoleStdio wires the machine to our stdio the way a Linux process has
// it: the program's stdin, stdout and stderr each on its own virtio port
// (console.Streams), byte for byte with a real end of input; the UART,
// which carries only the firmware banner and the kernel's own messages,
// goes to our stderr through the banner filter (the banner shows with -v),
// a whole line at a time.
// QEMU gets no stdin, so it leaves a terminal alone: the terminal keeps
// its line editing, and Ctrl-C reaches gometal, which passes it on.
// It also adds the entropy device and the kernel options that say which
// streams are terminals. finish waits for the program's output to drain.
func consoleStdio(cfg *qemu.Config, showBanner, hideExitLine bool) (qemu.Stdio, *console.Streams, func(), error) {
	streams, err := console.NewStreams(os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		return qemu.Stdio{}, nil, nil, err
	}
	cfg.Entropy, cfg.StdioPorts = true, true
	if opts := console.KernelOptions(os.Stdin, os.Stdout, os.Stderr); len(opts) > 0 {
		// Options may come in any order before "--": prefixing is safe.
		cfg.Append = strings.TrimSpace(strings.Join(opts, " ") + " " + cfg.Append)
	}
	// The kernel's lines reach our stderr whole: QEMU passes the UART on a
	// byte or a few at a time, and where stdout and stderr are one file
	// (2>&1) a program's write would otherwise land inside a kernel line.
	var stderr io.Writer = os.Stderr
	if hideExitLine {
		stderr = qemu.WithoutExitLines(stderr)
	}
	kernelLines := linesink.New(stderr)
	log := console.NewBannerFilter(kernelLines.Stream(), showBanner)
	stdio := qemu.Stdio{Stdout: log, Stderr: os.Stderr, Ports: streams.QEMU, Started: streams.Start}
	return stdio, streams, func() { streams.Wait(); log.Flush(); kernelLines.Flush() }, nil
}

// exitStatusOf maps a QEMU result to gometal's exit status. QEMU exits 0
// when it is stopped by a signal, so an interrupted run reports 128+signal
// itself rather than looking like a success.
func exitStatusOf(res qemu.Result, timeout time.Duration) error {
	switch {
	case res.TimedOut:
		return &exitError{code: exitTimeout, err: fmt.Errorf("timed out after %s", timeout)}
	case res.Interrupted != nil:
		if s, ok := res.Interrupted.(syscall.Signal); ok {
			return exitStatus(128 + int(s))
		}
		return exitStatus(130)
	case res.ExitCode != 0:
		return exitStatus(res.ExitCode)
	}
	return nil
}
