package main

// The flags that more than one command takes, each defined once: run and
// exec register the machine flags through machineFlags.register, so their
// names, meanings and parsing cannot drift apart; where the two commands
// deliberately say something different (exec's -mem defaults to 4G, its
// -env and -add come on top of what it passes by itself) the difference is
// one line of flagTexts, side by side. bench shares -qemu and -kernel.

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"gometal.dev/gometal/internal/machine"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// flagTexts are what run and exec say differently about the flags they
// share: -mem's default and the help of the flags whose meaning the
// command shades.
type flagTexts struct {
	mem            string // -mem's default
	memHelp        string
	timeoutHelp    string
	verboseHelp    string
	envHelp        string
	addHelp        string
	kernelArgsHelp string
	schedHelp      string
}

var runFlagTexts = flagTexts{
	mem:            "256M",
	memHelp:        "guest memory in QEMU syntax, e.g. 512M or 1G",
	timeoutHelp:    "stop QEMU after this long and exit 124, e.g. 30s (0: no limit)",
	verboseHelp:    "verbose: print the QEMU command line and ask the kernel to log its boot",
	envHelp:        "set `KEY=VALUE` in the program's environment (repeatable); KEY alone copies gometal's own value",
	addHelp:        "add a host file or directory tree to the initramfs at an absolute guest path: `HOST:GUEST` (repeatable)",
	kernelArgsHelp: "extra kernel command-line options, passed verbatim",
	schedHelp:      "thread placement policy: " + strings.Join(schedPolicies, ", ") + " (default: the kernel's)",
}

var execFlagTexts = flagTexts{
	mem:            defaultExecMem,
	memHelp:        "guest memory in QEMU syntax; the packed module lives in it too (QEMU only backs what the guest touches)",
	timeoutHelp:    "stop QEMU after this long and exit 124 (0: -test.timeout + 30s if given, else no limit)",
	verboseHelp:    "verbose: print the QEMU command line and what was packed",
	envHelp:        "also set `KEY=VALUE` in the program's environment (repeatable); KEY alone copies gometal's own value",
	addHelp:        "also pack a host file or directory at a guest path: `HOST:GUEST` (repeatable)",
	kernelArgsHelp: "extra kernel command-line options (trace, stats, verbose)",
	schedHelp:      "thread placement policy: " + strings.Join(schedPolicies, ", "),
}

// register defines the machine flags on fs, storing into f.
func (f *machineFlags) register(fs *flag.FlagSet, t flagTexts) {
	fs.IntVar(&f.cores, "cores", 4, fmt.Sprintf("number of harts (CPU cores), 1 to %d", maxCores))
	fs.StringVar(&f.mem, "mem", t.mem, t.memHelp)
	fs.DurationVar(&f.timeout, "timeout", 0, t.timeoutHelp)
	fs.DurationVar(&f.grace, "grace", defaultGrace, graceHelp)
	fs.BoolVar(&f.verbose, "v", false, t.verboseHelp)
	fs.Var(&f.env, "env", t.envHelp)
	fs.Var(&f.devices, "device", deviceFlagHelp)
	fs.Var(&f.disks, "disk", diskFlagHelp)
	fs.Var(&f.add, "add", t.addHelp)
	fs.Var(&f.mount, "mount", mountUsage)
	fs.Var(&f.net, "net", netUsage)
	fs.StringVar(&f.virtio, "virtio", "", virtioHelp)
	fs.Var(&f.publish, "p", publishUsage)
	kernelFlag(fs, &f.kernel)
	fs.StringVar(&f.kernelArgs, "kernel-args", "", t.kernelArgsHelp)
	fs.StringVar(&f.sched, "sched", "", t.schedHelp)
	qemuFlag(fs, &f.qemu)
	accelFlag(fs, &f.accel)
	machineFlag(fs, &f.machine)
}

// machineFlag defines -machine, the QEMU machine model (run, exec, bench).
func machineFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "machine", "", machineFlagHelp())
}

// runMachines are the machines run and exec boot a program on: supported,
// started with -kernel, and with the virtio devices the program's stdio
// travels on (a board model such as sifive_u boots images only).
func runMachines() []string {
	var names []string
	for _, m := range machine.Machines {
		if m.Supported && m.Boot.Load == machine.LoadKernel && m.Virtio != machine.NoVirtio {
			names = append(names, m.Name)
		}
	}
	return names
}

// machineFlagHelp lists the machines gometal boots, from the table.
func machineFlagHelp() string {
	return "the machine to boot on: " + strings.Join(runMachines(), ", ") + " (default: the program's architecture's first; a package with no -arch is built for the machine's)"
}

// defaultGrace is how long a program has to end after a stop signal, as
// `docker stop` gives a container.
const defaultGrace = 10 * time.Second

// graceHelp is -grace's help text (run and exec).
const graceHelp = "SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 go to the program; if it has not ended this long after a SIGINT, SIGTERM or SIGQUIT (or at a second one), the machine is stopped and gometal exits 128+signal (0: only at a second one)"

// accelFlag defines -accel, QEMU's accelerator (run, exec, bench).
func accelFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "accel", "auto", "QEMU's accelerator: auto (KVM on Linux, HVF on macOS, when the host's architecture is the program's and, for KVM, /dev/kvm is usable; else TCG), kvm, hvf or tcg; an explicit kvm or hvf the host cannot use falls back to TCG with one line saying why")
}

// chooseAccel resolves -accel (already checked by parseAccelFlag) for a
// guest of arch on this host, printing the one line that says when an
// explicit kvm or hvf falls back to TCG.
func chooseAccel(cmd, req string, arch *machine.Arch) machine.Accel {
	r, _ := machine.ParseAccel(req)
	a, note := machine.ChooseAccel(r, machine.HostNow(), arch)
	if note != "" {
		fmt.Fprintf(os.Stderr, "gometal %s: %s\n", cmd, note)
	}
	return a
}

// parseAccelFlag checks -accel's value.
func parseAccelFlag(cmd, v string) error {
	if _, err := machine.ParseAccel(v); err != nil {
		return usageErrorf(cmd, "%s: -accel %v", cmd, err)
	}
	return nil
}

// kernelFlag defines -kernel, the gometal kernel to boot.
func kernelFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "kernel", "", "the gometal kernel ELF to boot (default $GOMETAL_KERNEL, else built from the source checkout gometal runs in, else the one embedded in gometal)")
}

// qemuFlag defines -qemu, the QEMU binary to start.
func qemuFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "qemu", "", "the QEMU binary (default $GOMETAL_QEMU, else "+defaultQEMU()+" from PATH)")
}

// defaultQEMU names the QEMU binaries gometal looks for: one per
// architecture it runs.
func defaultQEMU() string {
	var names []string
	for _, a := range machine.Arches {
		if a.Supported() {
			names = append(names, a.QEMU)
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names, " or ") + " (the program's architecture)"
}

// archFlagHelp is -arch's help: the architectures from the machine table.
func archFlagHelp() string {
	var names, later []string
	for _, a := range machine.Arches {
		if a.Supported() {
			names = append(names, a.Name)
		} else {
			later = append(later, a.Name)
		}
	}
	h := "the architecture to build a package for: " + strings.Join(names, ", ")
	if len(later) > 0 {
		h += " (not yet: " + strings.Join(later, ", ") + ")"
	}
	return h + "; default $GOARCH, else the host's, where gometal runs it, else riscv64. A prebuilt binary runs as what it was built for"
}

// diskFlagHelp is the -disk flag's help text.
const diskFlagHelp = "attach a raw disk image as a virtio-blk PCI device the program drives through UIO (`PATH`; same as -device blk=PATH)"

// deviceFlagHelp is the -device flag's help text (run and exec).
const deviceFlagHelp = "give the program a device through UIO: `NAME[=PARAM][@HART]` (repeatable; gometal help devices lists them)"
