package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

var runCommand = &command{
	name:    "run",
	summary: "build or take a Go program and run it on gometal under QEMU",
	usage:   runUsage,
	run:     runMain,
}

// maxCores bounds -cores; the kernel's hart table is sized for it.
const maxCores = 64

// runFlags holds `gometal run`'s options after parsing and validation.
type runFlags struct {
	machineFlags
	gdb     bool
	tags    string
	ldflags string
	arch    string   // -arch as given ("" when not; programArch decides)
	target  string   // the package or binary
	args    []string // the program's arguments
}

func runUsage(w io.Writer) {
	fmt.Fprint(w, `usage: gometal run [flags] <package-or-binary> [arguments...]

Run builds a Go package (a directory like ./examples/hello, a .go file, or an
import path) as a static Linux program (GOOS=linux CGO_ENABLED=0) — or takes
an already built one — packs it as /init in an initramfs, and boots it on
the gometal kernel for its architecture in QEMU's virt machine for it
(-machine). A prebuilt binary runs as what its ELF says; a package is
built for -arch, else -machine's architecture, else $GOARCH, else the
host's, where gometal runs them, else riscv64 (gometal's default).

The program sees its arguments in os.Args[1:] and the -env variables in
its environment. Its stdin, stdout and stderr are gometal's, byte for byte
and apart (each on its own virtio console port): redirections and pipes
work as for a Linux program, and stdin's end is a real end of file. The
kernel's own messages go to gometal's stderr. Flags after the program name
belong to the program.

gometal run exits with the program's exit status. A kernel panic prints a
line starting "gometal: kernel panic" and exits 101; a timeout exits 124.
Ctrl-C is SIGINT to the program, as on Linux (-grace lists the signals
passed on): a program without a handler ends with 130, one with a handler
as it chooses; one that has not ended -grace after it, or at a second
Ctrl-C, is stopped with the machine, and gometal exits 130. Usage and
input errors (a -mem below the machine's minimum among them) exit 2,
build failures 1.

Flags:
`)
	fs, _ := newRunFlagSet()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, `
Examples:

	gometal run ./examples/hello
	gometal run -cores 1 -timeout 30s ./prog -name world
	echo hi | gometal run ./prog
	gometal run ./prog < in.bin > out.bin 2> err.txt
	gometal run -env GREETING='hello, world' -add testdata:/testdata ./prog.elf
	gometal run -mount ./data:/data ./examples/kvstore put k v
	gometal run -net -p 8080:80 ./examples/httpd   # then: curl localhost:8080
	gometal run -kernel-args 'stats trace' ./examples/hello
	gometal run -gdb ./examples/hello   # then attach gdb-multiarch as printed

Kernel arguments (-kernel-args, or set by the flags above):

	verbose     log the boot (CPUs, memory) and print statistics at exit (-v)
	stats       print per-CPU accounting and memory use after the program exits
	trace       log every system call with its arguments and result
	cores=N     use at most N CPUs; the others stay parked
	idlepoll=US an idle CPU polls for work up to US µs before it naps
	            (default 200; 0: nap at once, no timer advance)
	wakesteal=US a thread woken for a napping CPU runs on the waker's CPU
	            at once (0, the default) or after US µs, unless the napping
	            CPU takes it first; off: it waits for the napping CPU
	rdinit=PATH run PATH from the initramfs instead of /init
	mount=TAG:/GUEST[:ro]
	            mount the virtio-9p device TAG at /GUEST (set by -mount)
	onexit=poweroff|reboot|halt
	            what the machine does when the program ends (gometal build -on-exit)
	semihosting arm64: QEMU runs with -semihosting, so the exit status can
	            leave through Arm semihosting (gometal run sets it itself)
	random.trust_bootloader=off
	            do not count the loader's /chosen/rng-seed as entropy (as Linux)

gometal run IMAGE boots a file gometal build wrote, on the serial console,
after checking it; its program, arguments and files are inside it.
`)
}

// newRunFlagSet declares run's flags; it is shared by parsing and help.
func newRunFlagSet() (*flag.FlagSet, *runFlags) {
	f := &runFlags{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.machineFlags.register(fs, "run")
	defineFlag(fs, "run", "gdb", &f.gdb)
	defineFlag(fs, "run", "tags", &f.tags)
	defineFlag(fs, "run", "ldflags", &f.ldflags)
	defineFlag(fs, "run", "arch", &f.arch)
	return fs, f
}

// parseRunFlags parses and validates args; flag.ErrHelp means -h.
func parseRunFlags(args []string) (*runFlags, error) {
	fs, f := newRunFlagSet()
	if err := parseCommand(fs, "run", args, "no package or binary given"); err != nil {
		return nil, err
	}
	f.target, f.args = fs.Arg(0), fs.Args()[1:]
	return f, f.validate()
}

// validate checks flag values up front so mistakes cost no build or boot.
func (f *runFlags) validate() error {
	if err := checkArchFlag("run", f.arch); err != nil {
		return err
	}
	return f.machineFlags.validate("run")
}

// envPair checks a -env value; a bare KEY takes gometal's own value, as
// `docker run -e KEY` does.
func envPair(kv string, lookup func(string) (string, bool)) (string, error) {
	key, _, hasValue := strings.Cut(kv, "=")
	if key == "" || strings.ContainsAny(key, " \t\n\"\\") {
		return "", fmt.Errorf("%q: want KEY=VALUE", kv)
	}
	if hasValue {
		return kv, nil
	}
	val, ok := lookup(key)
	if !ok {
		return "", fmt.Errorf("%s: not set in gometal's environment; use %s=VALUE", key, key)
	}
	return key + "=" + val, nil
}
