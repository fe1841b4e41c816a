package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"gometal.dev/gometal/internal/bootargs"
	"gometal.dev/gometal/internal/goexec"
	"gometal.dev/gometal/internal/initramfs"
	"gometal.dev/gometal/internal/qemu"
)

var execCommand = &command{
	name:    "exec",
	summary: "run a prebuilt binary in its working directory (for go test -exec)",
	usage:   execUsage,
	run:     execMain,
}

// defaultExecMem is the guest memory of `gometal exec`. QEMU backs only the
// pages the guest touches (a 4G guest running hello costs the host the same
// 67 MB of RSS as a 1G one), so the default only has to be large enough for
// ordinary test suites — klauspost/compress/zstd's needs more than 1G — and
// small enough that go test's parallel boots fit on a developer machine.
// README.md ("Guest memory for tests") has the measurements.
const defaultExecMem = "4G"

// execFlags holds `gometal exec`'s options.
type execFlags struct {
	machineFlags
	maxDir   string
	maxBytes int64
	noDir    bool
	noModule bool
	module   string // -module: auto, ro, rw or pack (execmount.go)
	binary   string
	args     []string
}

func execUsage(w io.Writer) {
	fmt.Fprint(w, `usage: gometal exec [flags] <binary> [arguments...]

Exec runs a prebuilt static Linux Go binary (for riscv64 or arm64: its ELF
says which) on gometal the way 'go test -exec' and 'go run -exec' expect:
the go command runs

	gometal exec /tmp/go-build.../pkg.test -test.paniconexit0 -test.timeout=10m0s ...

in the package's source directory. gometal exec packs the binary as /init,
shows the test its module (from the go.mod directory; without one, the
current directory) at its own absolute path, read-only and cached, as a
host directory share (-mount HOST:GUEST:ro,cache=loose), so testdata/, ../testdata and absolute paths resolve as on
Linux; starts the program in the current directory (kernel option cwd=DIR),
passes the arguments through unchanged, relays the output and exits with
the program's exit status. A test that writes into its module gets EROFS
(tests should write to t.TempDir(), which is in the guest's /tmp);
the directories go test's -cpuprofile, -memprofile, -trace, -coverprofile
and the like write into are made writable (the module's share under
-module auto, else a share of their own), so those files reach the host;
-module rw lets such writes through to your files, as on Linux; -module
pack copies the module into the initramfs instead (writes succeed and are
lost). The default, -module auto, is ro (a file costs only when the test
first touches it; what was read is kept, as the module does not change
while its test runs).

	GOOS=linux GOARCH=riscv64 CGO_ENABLED=0 go test -exec 'gometal exec' ./...
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go test -exec 'gometal exec' ./...
	GOOS=linux GOARCH=riscv64 CGO_ENABLED=0 go run -exec 'gometal exec' .
	GOMETAL_EXEC_FLAGS='-cores 2 -kernel-args trace' GOOS=linux GOARCH=riscv64 \
		CGO_ENABLED=0 go test -exec 'gometal exec' -run TestX .

Flags go before the binary; GOMETAL_EXEC_FLAGS holds more (parsed first,
so the command line wins). -env and -add come on top of what exec passes
and packs by itself (below); -v also says what was packed. Flags:
`)
	fs, _ := newExecFlagSet()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, `
Environment passed to the program: every GO* variable (GODEBUG,
GOTRACEBACK, GOMAXPROCS, GOGC, GOROOT, ...) except GOMETAL_* and GOTMPDIR;
HOME, USER, LOGNAME, TZ, LANG, LANGUAGE, TERM, PWD and LC_*; then -env.
PATH and TMPDIR are host paths and are not passed (os.TempDir is /tmp).

The time zone database of the Go installation ($GOROOT/lib/time/zoneinfo.zip,
GOROOT from the environment or 'go env GOROOT') is packed at its own path, so
time.LoadLocation works. The module is packed (as with -module pack) also
when its path cannot be a mount (a space, quote or ':' in it) or a -mount
overlaps it; -v says why. What packing leaves out: version-control directories
(.git, .hg, .svn, .bzr, .jj), nested modules (directories with their own
go.mod) and, in a git work tree, what git ignores (build outputs); the
current directory is always packed whole, first, so when -max-dir bites it
is the rest of the module that is cut, with a warning.

Timeout: with -timeout 0 (the default) QEMU is stopped 30s after the
test binary's own -test.timeout, if it has one; exit status 124.
`)
}

func newExecFlagSet() (*flag.FlagSet, *execFlags) {
	f := &execFlags{}
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.machineFlags.register(fs, "exec")
	defineFlag(fs, "exec", "module", &f.module)
	defineFlag(fs, "exec", "max-dir", &f.maxDir)
	defineFlag(fs, "exec", "no-module", &f.noModule)
	defineFlag(fs, "exec", "no-dir", &f.noDir)
	return fs, f
}

// parseExecFlags parses GOMETAL_EXEC_FLAGS (from getenv), then args.
func parseExecFlags(args []string, getenv func(string) string) (*execFlags, error) {
	fs, f := newExecFlagSet()
	if extra := getenv(goexec.EnvFlags); strings.TrimSpace(extra) != "" {
		words, err := goexec.SplitFlags(extra)
		if err != nil {
			return nil, usageErrorf("exec", "exec: %s: %v", goexec.EnvFlags, err)
		}
		if err := fs.Parse(joinNetValue(fs, words)); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageErrorf("exec", "exec: %s: %v", goexec.EnvFlags, err)
		}
		if fs.NArg() > 0 {
			return nil, usageErrorf("exec", "exec: %s: %q is not a flag", goexec.EnvFlags, fs.Arg(0))
		}
	}
	if err := parseCommand(fs, "exec", args, "no binary given"); err != nil {
		return nil, err
	}
	f.binary, f.args = fs.Arg(0), fs.Args()[1:]
	return f, f.validate()
}

func (f *execFlags) validate() error {
	if err := f.machineFlags.validate("exec"); err != nil {
		return err
	}
	if !slices.Contains(moduleModes, f.module) {
		return usageErrorf("exec", "exec: -module %q: want one of %s", f.module, strings.Join(moduleModes, ", "))
	}
	n, err := qemu.ParseSize(f.maxDir)
	if err != nil {
		return usageErrorf("exec", "exec: -max-dir: %v", err)
	}
	f.maxBytes = int64(n)
	return nil
}

// execMain is `gometal exec`.
func execMain(args []string) error {
	f, err := parseExecFlags(args, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		execUsage(os.Stdout)
		return nil
	}
	if err != nil {
		return err
	}
	arch, err := programArch("exec", "", f.machine, f.binary, prebuilt)
	if err != nil {
		return err
	}
	m, err := f.machineFor("exec", arch)
	if err != nil {
		return err
	}
	qemuBin, kernel, err := findMachine(f.qemu, f.kernel, arch)
	if err != nil {
		return err
	}
	dir := ""
	if !f.noDir {
		if dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp("", "gometal-exec-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	share, mounted, why := moduleShare(dir, f)
	moduleMount := -1
	if mounted {
		moduleMount = len(f.mounts)
		f.mounts = append(f.mounts, share)
	} else if why != "" && (f.verbose || f.module != moduleAuto) {
		fmt.Fprintf(os.Stderr, "gometal exec: packing the module instead of mounting it: %s\n", why)
	}
	if f.module != modulePack {
		outputMounts(f, goexec.OutputDirs(f.args), moduleMount)
	}
	extras := append([]initramfs.Mapping(nil), f.adds...)
	if m, ok := goexec.ZoneinfoMapping(goroot()); ok && !(mounted && within(m.Guest, share.guest)) {
		extras = append(extras, m)
	}
	initrd := filepath.Join(tmp, "initramfs.cpio")
	im := goexec.Image{Program: f.binary, Dir: dir, MaxDir: f.maxBytes, Extras: extras, Warnings: os.Stderr}
	if mounted {
		im.Dir = "" // the share shows it
	} else if dir != "" && !f.noModule {
		if im.Module = goexec.ModuleDir(dir); im.Module != "" {
			im.LeftOut = goexec.GitIgnored(im.Module)
		}
	}
	st, err := im.Create(initrd)
	if err != nil {
		return inputError(err)
	}
	if f.verbose && mounted {
		mode := "read-only, cached"
		if !share.readOnly {
			mode = "read-write"
		}
		fmt.Fprintf(os.Stderr, "gometal exec: mounted %s at its own path, %s\n", share.host, mode)
	} else if f.verbose {
		fmt.Fprintf(os.Stderr, "gometal exec: packed %s (module %s): %d files, %d dirs, %d links, %.1f MiB\n",
			dir, im.Module, st.Files, st.Dirs, st.Links, float64(st.Bytes)/(1<<20))
	}
	cfg := qemu.Config{
		Machine: m, Binary: qemuBin, SMP: int(f.cores), Memory: f.mem,
		Kernel: kernel, Initrd: initrd, Append: execCmdline(f, dir, os.Environ()),
		Extra:  f.devSel.QEMU,
		Mounts: qemuMounts(f.mounts),
		Accel:  chooseAccel("exec", f.accel, arch),
	}
	cfg.Net = qemuNet(f.net, f.forwards)
	cfg.Machine = f.withVirtio(cfg.Machine)
	// SIGQUIT, which go test sends a test that overran its deadline, reaches
	// the test binary: its goroutine dump is printed as on Linux.
	return boot(cfg, bootOptions{verbose: f.verbose, timeout: goexec.QEMUTimeout(f.timeout, f.args), grace: f.grace})
}

// execCmdline is the kernel command line: options, cwd=, the environment,
// raw -kernel-args, --, the arguments.
func execCmdline(f *execFlags, dir string, environ []string) string {
	opts := f.kernelOptions()
	var env []string
	if dir != "" && dir != "/" {
		env = append(env, "cwd="+filepath.ToSlash(dir)) // encoded like the env: any byte survives
	}
	env = append(env, goexec.ForwardEnv(environ)...)
	env = append(env, f.env...)
	return bootargs.Cmdline{Options: opts, Env: env, Raw: f.kernelArgs, Args: f.args}.String()
}

// goroot is the Go installation the test binary came from: $GOROOT (the go
// command sets it for the programs it runs), else `go env GOROOT`, else the
// one gometal was built with.
func goroot() string {
	if g := os.Getenv("GOROOT"); g != "" {
		return g
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output(); err == nil {
		if g := strings.TrimSpace(string(out)); g != "" {
			return g
		}
	}
	return runtime.GOROOT() //nolint:staticcheck // a last resort
}
