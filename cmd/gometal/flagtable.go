package main

// Every flag of every command, defined once. A command lists the flags it
// takes (defineFlag); their name, meaning and help come from flagTable,
// so the same flag cannot mean two things in two commands. Where a
// command has a reason to start from another default (exec's -mem: test
// suites need more memory), the row says so, next to the others'.
// TestFlagTable checks every command's flag set against its own copy of
// this table.

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gometal.dev/gometal/internal/bootimage"
	"gometal.dev/gometal/internal/kernelimage"
	"gometal.dev/gometal/internal/machine"
)

// flagDef is one flag, as every command that takes it defines it.
type flagDef struct {
	name  string
	cmds  string // the commands that take it, space-separated
	def   string // the default, as text ("": none)
	usage string
	// cmdDefs are the commands whose default differs from def, with
	// theirs.
	cmdDefs map[string]string
}

// flagTable is every flag gometal's commands take, in -h's order.
var flagTable = []flagDef{
	{name: "accel", cmds: "run exec bench", def: "auto", usage: accelHelp},
	{name: "add", cmds: "run exec build", usage: "add a host file or directory tree to the program's files at an absolute guest path: `HOST:GUEST` (repeatable)"},
	{name: "arch", cmds: "run build bench", usage: archFlagHelp()},
	{name: "conns", cmds: "bench", usage: "comma-separated connection counts for net's connection scaling, over loopback and through the device (default 1000,10000; -quick 1000)"},
	{name: "core-counts", cmds: "bench", usage: fmt.Sprintf("comma-separated, increasing CPU counts (each 1 to %d) the scaling benchmarks boot at (default 1,2,4; -quick 1,2)", maxCores)},
	{name: "cores", cmds: "run exec build bench", def: "4", cmdDefs: map[string]string{"build": "", "bench": ""}, usage: coresHelp},
	{name: "device", cmds: "run exec", usage: "give the program a device through UIO: `NAME[=PARAM][@CPU]` (repeatable; gometal help devices lists them)"},
	{name: "disk", cmds: "run exec", usage: "attach a raw disk image as a virtio-blk PCI device the program drives through UIO (`PATH`; same as -device blk=PATH)"},
	{name: "earlycon", cmds: "build", usage: "arm64: the UART that says why the kernel cannot boot before it has a device tree (no device tree, a bad load address), as Linux's earlycon=: pl011,ADDRESS, uart8250,mmio,ADDRESS, uart8250,mmio32,ADDRESS or none (default: QEMU virt's PL011, " + bootimage.QEMUVirtEarlyConsole.String() + ")"},
	{name: "env", cmds: "run exec build", usage: "set `KEY=VALUE` in the program's environment (repeatable); KEY alone copies gometal's own value"},
	{name: "gdb", cmds: "run", usage: "start QEMU halted with a gdb server on localhost:1234"},
	{name: "grace", cmds: "run exec", def: defaultGrace.String(), usage: graceHelp},
	{name: "kernel", cmds: "run exec build bench version", usage: kernelHelp()},
	{name: "kernel-args", cmds: "run exec build", usage: "extra kernel command-line options, passed verbatim (gometal run -h lists them)"},
	{name: "ldflags", cmds: "run build", usage: "linker flags, passed to go build"},
	{name: "linux", cmds: "bench", usage: "also boot Debian's Linux kernel and compare"},
	{name: "machine", cmds: "run exec", usage: machineFlagHelp()},
	{name: "max-dir", cmds: "exec", def: "100M", usage: "pack at most this much of the working directory and its module (-module pack, or a module that cannot be mounted); files beyond it are left out with a warning"},
	{name: "mem", cmds: "run exec bench", def: "256M", cmdDefs: map[string]string{"exec": defaultExecMem}, usage: memHelp()},
	{name: "module", cmds: "exec", def: moduleAuto, usage: moduleUsage},
	{name: "mount", cmds: "run exec", usage: mountUsage},
	{name: "net", cmds: "run exec", usage: netUsage},
	{name: "no-dir", cmds: "exec", usage: "show neither the working directory nor its module (the program starts in /)"},
	{name: "no-module", cmds: "exec", usage: "show only the working directory, not the rest of its module"},
	{name: "o", cmds: "build", usage: "the image file to write (required)"},
	{name: "on-exit", cmds: "build", def: "poweroff", usage: "what the machine does when the program ends: " + strings.Join(onExitModes, ", ")},
	{name: "out", cmds: "bench", usage: "the report (default docs/benchmarks/run-<date>-<time>.md, UTC: a new file beside the dated history, never the curated docs/benchmarks.md); PNG plots are written next to it"},
	{name: "p", cmds: "run exec", usage: publishUsage},
	{name: "qemu", cmds: "run exec bench", usage: qemuHelp()},
	{name: "quick", cmds: "bench", usage: "small problem sizes and one run: a few minutes"},
	{name: "runs", cmds: "bench", usage: "boots per configuration, medians reported (default 3; -quick 1)"},
	{name: "sched", cmds: "run exec build", usage: "thread placement policy: " + strings.Join(schedPolicies, ", ") + " (default: the kernel's)"},
	{name: "tags", cmds: "run build", usage: "build tags, passed to go build"},
	{name: "tap", cmds: "bench", usage: "net also measures bulk TCP through a tap device in a network namespace the bench makes (needs root and ip(8)); the whole run happens inside it"},
	{name: "tap-mq", cmds: "bench", usage: "with -tap: make the tap a multiqueue one (ip tuntap ... multi_queue), so both kernels get a virtio-net queue pair per CPU"},
	{name: "timeout", cmds: "run exec", usage: "stop the machine after this long and exit 124, e.g. 30s (0: no limit; under exec, the test binary's -test.timeout + 30s when it has one)"},
	{name: "v", cmds: "run exec build", usage: "verbose: the kernel logs its boot and prints statistics at exit; gometal prints each QEMU command line it starts and what it packs"},
	{name: "virtio", cmds: "run exec", usage: virtioHelp},
}

// lookupFlag is the table's row for name; cmd must take it.
func lookupFlag(cmd, name string) flagDef {
	for _, d := range flagTable {
		if d.name == name && d.takenBy(cmd) {
			return d
		}
	}
	panic("gometal: " + cmd + " defines -" + name + ", which flagTable does not give it") // TestFlagTable rules this out
}

// takenBy reports whether cmd takes the flag.
func (d flagDef) takenBy(cmd string) bool {
	for _, c := range strings.Fields(d.cmds) {
		if c == cmd {
			return true
		}
	}
	return false
}

// defaultFor is the flag's default under cmd.
func (d flagDef) defaultFor(cmd string) string {
	if v, ok := d.cmdDefs[cmd]; ok {
		return v
	}
	return d.def
}

// defineFlag defines flag name, as the table has it for cmd, on fs,
// storing into p (*string, *bool, *int, *time.Duration or a flag.Value).
func defineFlag(fs *flag.FlagSet, cmd, name string, p any) {
	d := lookupFlag(cmd, name)
	def := d.defaultFor(cmd)
	switch p := p.(type) {
	case *string:
		fs.StringVar(p, name, def, d.usage)
	case *bool:
		fs.BoolVar(p, name, def == "true", d.usage)
	case *int:
		n := 0
		if def != "" {
			n = must(strconv.Atoi(def))
		}
		fs.IntVar(p, name, n, d.usage)
	case *time.Duration:
		var t time.Duration
		if def != "" {
			t = must(time.ParseDuration(def))
		}
		fs.DurationVar(p, name, t, d.usage)
	case flag.Value:
		if def != "" {
			if err := p.Set(def); err != nil {
				panic(err)
			}
		}
		fs.Var(p, name, d.usage)
	default:
		panic(fmt.Sprintf("gometal: -%s: no flag of type %T", name, p))
	}
}

// must is v, or a panic for a default the table cannot have.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// coresHelp is -cores's help: one count everywhere.
var coresHelp = fmt.Sprintf("the number `N` of CPUs the program runs on, 1 to %d (a built image takes at most N of its machine's)", maxCores)

// coresFlag is -cores: one count of CPUs, 0 when not given. A list (what
// bench's -cores once took) is refused with a pointer to -core-counts.
type coresFlag int

func (c *coresFlag) String() string { return strconv.Itoa(int(*c)) }

func (c *coresFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	switch {
	case strings.Contains(s, ","):
		return fmt.Errorf("one count of CPUs, not a list (bench boots at several counts with -core-counts %s)", s)
	case err != nil || n < 1 || n > maxCores:
		return fmt.Errorf("want a number of CPUs, 1 to %d", maxCores)
	}
	*c = coresFlag(n)
	return nil
}

// accelHelp is -accel's help.
const accelHelp = "QEMU's accelerator: auto (KVM on Linux, HVF on macOS, when the host's architecture is the program's and, for KVM, /dev/kvm is usable; else TCG), kvm, hvf or tcg; an explicit kvm or hvf the host cannot use falls back to TCG with one line saying why"

// kernelHelp is -kernel's help: the variable for each architecture.
func kernelHelp() string {
	var envs []string
	for _, a := range supportedArches() {
		envs = append(envs, "$"+kernelimage.EnvFor(a.Name)+" for "+a.Name)
	}
	return "the gometal kernel, an ELF or a kernel Image (default " + strings.Join(envs, ", ") +
		" programs; else built from the source checkout gometal runs in, else the one embedded in gometal)"
}

// qemuHelp is -qemu's help: each architecture's QEMU.
func qemuHelp() string {
	return "the QEMU binary (default $GOMETAL_QEMU, else " + qemuNames() + " from PATH)"
}

// qemuNames names the QEMU binary gometal looks for on each architecture:
// "qemu-system-riscv64 for riscv64 programs, qemu-system-aarch64 for arm64 ones".
func qemuNames() string {
	var names []string
	for _, a := range supportedArches() {
		names = append(names, a.QEMU+" for "+a.Name)
	}
	return strings.Join(names, ", ")
}

// memHelp is -mem's help, with the machines' minimums from the table.
func memHelp() string {
	var mins []string
	sizes := map[uint64]bool{}
	for _, name := range runMachines() {
		m, _ := machine.Named(name)
		sizes[m.MinMemory] = true
		mins = append(mins, name+" "+machine.FormatSize(m.MinMemory))
	}
	least := "the machine's minimum (" + strings.Join(mins, ", ") + ")"
	if len(sizes) == 1 {
		for n := range sizes {
			least = machine.FormatSize(n) + ", every machine's minimum"
		}
	}
	return "guest memory in QEMU syntax, e.g. 512M or 1G; at least " + least
}

// archFlagHelp is -arch's help: the architectures from the machine table
// and the rule (machine.ResolveArch) that picks one without it.
func archFlagHelp() string {
	var names, later []string
	for _, a := range machine.Arches {
		if a.Supported() {
			names = append(names, a.Name)
		} else {
			later = append(later, a.Name)
		}
	}
	h := "the architecture to build a package for: " + strings.Join(names, " or ")
	if len(later) > 0 {
		h += " (not yet: " + strings.Join(later, ", ") + ")"
	}
	return h + "; default -machine's (where the command takes -machine), else $GOARCH, else the host's, where gometal runs it, else riscv64 (gometal's default). A prebuilt binary runs as what its ELF says; -arch must agree"
}

// supportedArches are the architectures gometal runs, in the table's order.
func supportedArches() []*machine.Arch {
	var as []*machine.Arch
	for _, a := range machine.Arches {
		if a.Supported() {
			as = append(as, a)
		}
	}
	return as
}
