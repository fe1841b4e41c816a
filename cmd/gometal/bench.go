package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gometal.dev/gometal/internal/bench"
	"gometal.dev/gometal/internal/linuxkernel"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

var benchCommand = &command{
	name:    "bench",
	summary: "run the benchmarks (bench/) on gometal and Linux and write a report under docs/benchmarks/",
	usage:   benchUsage,
	run:     benchMain,
}

func benchUsage(w io.Writer) {
	fmt.Fprintf(w, `usage: gometal bench [benchmarks...] [flags]

Bench builds the benchmark programs in bench/ for -arch and boots each one
on gometal and, with -linux, on Debian's Linux kernel for that
architecture (trixie, fetched once with apt-get from the machine's
configured Debian mirror and cached in ~/.cache/gometal/linux, arm64's in
its arm64/ subdirectory) in the same QEMU configuration: the same machine,
the architecture's default (%s),
the same -smp and -m, the same initramfs with the program as /init. Boots alternate between the kernels;
every configuration is repeated -runs times and the report shows medians.
The scaling benchmarks boot at each of -core-counts, or at -cores alone.
Progress goes to stderr; the report (Markdown) and its PNG plots are
written to -out and next to it.

Benchmarks (default: all): %s

Flags:
`, defaultMachines(), strings.Join(bench.Benchmarks(), ", "))
	fs, _ := newBenchFlagSet()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprintf(w, `
Examples:

	gometal bench -quick -linux                 # a few minutes
	gometal bench -linux                        # the full run (make bench)
	gometal bench mandelbrot -core-counts 1,2 -runs 3 -out /tmp/b.md
	gometal bench -cores 4 arith                # the scaling benchmarks at 4 CPUs only
	gometal bench -linux -runs 1 net            # the network group: HTTP, bulk TCP, connections
	gometal bench -linux -quick -conns 10000 net  # the network group with 10,000 connections

The C benchmark (matmul) needs the architecture's C cross compiler (%s);
without it that row says why it is missing.
The net group publishes three free host ports per boot (QEMU's user network)
and loads the guest from this process: 10,000 connections through the device
need a hard limit on open files (ulimit -Hn) above 10,000: bench raises its
soft limit, and QEMU's, to it; with less, that row reports how many opened.
`, crossCompilers())
}

// defaultMachines names each architecture's default machine:
// "riscv64-virt for riscv64, arm64-virt for arm64".
func defaultMachines() string {
	var names []string
	for _, a := range supportedArches() {
		names = append(names, a.Default().Name+" for "+a.Name)
	}
	return strings.Join(names, ", ")
}

// crossCompilers names each architecture's C cross compiler and the
// Debian package that has it.
func crossCompilers() string {
	var names []string
	for _, a := range supportedArches() {
		names = append(names, a.Name+": "+a.CrossCC+", Debian's "+a.CrossCCPackage)
	}
	return strings.Join(names, "; ")
}

type benchFlags struct {
	coreCounts, out, mem, qemu, kernel, conns string
	arch, accel                               string
	cores                                     coresFlag // one count instead of -core-counts (0: not given)
	runs                                      int
	linux, quick, tap, tapMQ                  bool
}

func newBenchFlagSet() (*flag.FlagSet, *benchFlags) {
	f := &benchFlags{}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for name, p := range map[string]any{
		"cores": &f.cores, "core-counts": &f.coreCounts, "runs": &f.runs, "linux": &f.linux, "quick": &f.quick,
		"out": &f.out, "mem": &f.mem, "qemu": &f.qemu, "kernel": &f.kernel, "accel": &f.accel, "arch": &f.arch,
		"tap": &f.tap, "tap-mq": &f.tapMQ, "conns": &f.conns,
	} {
		defineFlag(fs, "bench", name, p)
	}
	return fs, f
}

// parseBenchArgs accepts benchmark names and flags in any order.
func parseBenchArgs(args []string) (*benchFlags, []string, error) {
	fs, f := newBenchFlagSet()
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil, err
			}
			return nil, nil, usageErrorf("bench", "bench: %v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	known := bench.Benchmarks()
	for _, n := range names {
		ok := false
		for _, k := range known {
			ok = ok || k == n
		}
		if !ok {
			return nil, nil, usageErrorf("bench", "bench: unknown benchmark %q (have: %s)", n, strings.Join(known, ", "))
		}
	}
	return f, names, nil
}

// parseCoreCounts parses -core-counts: "1,2,4".
func parseCoreCounts(s string) ([]int, error) {
	var cores []int
	for _, f := range strings.Split(s, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 1 || c > maxCores {
			return nil, fmt.Errorf("-core-counts %q: want a comma-separated list of 1 to %d", s, maxCores)
		}
		for _, prev := range cores {
			if c <= prev {
				return nil, fmt.Errorf("-core-counts %q: want increasing core counts", s)
			}
		}
		cores = append(cores, c)
	}
	return cores, nil
}

// benchCores are the CPU counts the scaling benchmarks boot at: -cores N
// alone, else -core-counts, else 1,2,4 (-quick: 1,2).
func benchCores(f *benchFlags) ([]int, error) {
	switch {
	case f.cores != 0 && f.coreCounts != "":
		return nil, fmt.Errorf("-cores %d and -core-counts %s: give one (-cores N is -core-counts N)", int(f.cores), f.coreCounts)
	case f.cores != 0:
		return []int{int(f.cores)}, nil
	case f.coreCounts != "":
		return parseCoreCounts(f.coreCounts)
	case f.quick:
		return []int{1, 2}, nil
	}
	return []int{1, 2, 4}, nil
}

// parseConns parses "1000,10000": connection counts, 1 to 100,000 each.
func parseConns(s string) ([]int, error) {
	var conns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 100000 {
			return nil, fmt.Errorf("-conns %q: want a comma-separated list of counts from 1 to 100000", s)
		}
		conns = append(conns, n)
	}
	return conns, nil
}

func benchMain(args []string) error {
	f, names, err := parseBenchArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		benchUsage(os.Stdout)
		return nil
	}
	if err != nil {
		return err
	}
	cores, err := benchCores(f)
	if err != nil {
		return usageErrorf("bench", "bench: %v", err)
	}
	if f.runs < 0 {
		return usageErrorf("bench", "bench: -runs %d: want at least 1", f.runs)
	}
	if f.runs == 0 {
		f.runs = 3
		if f.quick {
			f.runs = 1
		}
	}
	if _, err := qemu.ParseSize(f.mem); err != nil {
		return usageErrorf("bench", "bench: -mem: %v", err)
	}
	var conns []int
	if f.conns != "" {
		if conns, err = parseConns(f.conns); err != nil {
			return usageErrorf("bench", "bench: %v", err)
		}
	}
	if err := parseAccelFlag("bench", f.accel); err != nil {
		return err
	}
	if err := checkArchFlag("bench", f.arch); err != nil {
		return err
	}
	arch, err := programArch("bench", f.arch, "", "", goPackage)
	if err != nil {
		return err
	}
	m := arch.Default()
	if err := checkMem("bench", f.mem, m); err != nil {
		return err
	}
	linuxkernel.SetArch(arch)
	qemuBin, kernel, err := findMachine(f.qemu, f.kernel, m.Arch)
	if err != nil {
		return err
	}
	cache, err := linuxkernel.DefaultCacheDir()
	if err != nil {
		return err
	}
	if arch != machine.RISCV64 { // riscv64 keeps the cache where it always was
		cache = filepath.Join(cache, arch.Name)
	}
	if f.tap && !inBenchNS() {
		if f.linux { // the namespace has no route to the mirror
			k, err := linuxkernel.Fetch(cache, os.Stderr)
			if err != nil {
				return err
			}
			if _, err := linuxkernel.Modules(cache, k, linuxkernel.VirtioNetModules, os.Stderr); err != nil {
				return err
			}
		}
		return runInBenchNS(args, f.tapMQ)
	}
	return bench.Run(bench.Options{
		Names: names, Cores: cores, Runs: f.runs, Linux: f.linux, Quick: f.quick, Conns: conns, Tap: f.tap, TapMQ: f.tapMQ,
		Out: benchOut(f.out, time.Now()), Mem: f.mem, Machine: m, Accel: chooseAccel("bench", f.accel, arch), QEMU: qemuBin, Kernel: kernel, LinuxDir: cache,
		Command: "gometal bench " + strings.Join(args, " "),
	})
}

// benchOut is the report's path: -out, else a new file under
// docs/benchmarks/ named for the run's start (UTC), so a run never
// overwrites the curated docs/benchmarks.md or a day's history.
func benchOut(out string, now time.Time) string {
	if out != "" {
		return out
	}
	return filepath.Join("docs", "benchmarks", "run-"+now.UTC().Format("2006-01-02-1504")+".md")
}
