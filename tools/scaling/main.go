// Command scaling measures how a CPU-bound Go program speeds up with more
// harts on gometal: it boots bench/cpubound at each core count in turn,
// alternating (so machine noise hits every count alike), for several rounds,
// and reports the median time per core count, the speedup over the first
// count and the per-hart busy fractions the kernel prints with `stats`.
//
//	go run ./tools/scaling [-cores 1,2] [-rounds 5] [-n 200000000] [-g 4] [-arch arm64]
//
// -arch arm64 builds the program for linux/arm64; `gometal run` then boots
// the arm64 kernel ($GOMETAL_KERNEL_ARM64, else the checkout's or the
// embedded one).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gometal.dev/gometal/internal/kstats"
	"gometal.dev/gometal/internal/linesink"
	"gometal.dev/gometal/internal/machine"
)

// msRe finds the time on bench/cpubound's result line.
var msRe = regexp.MustCompile(`: ([0-9.]+) ms$`)

type sample struct {
	ms   float64
	busy []int
}

func main() {
	coresFlag := flag.String("cores", "1,2", "comma-separated core counts")
	rounds := flag.Int("rounds", 5, "boots per core count")
	n := flag.String("n", "200000000", "iterations per goroutine")
	g := flag.String("g", "4", "goroutines")
	sched := flag.String("sched", "", "placement policy (default: the kernel's)")
	archName := flag.String("arch", machine.Default().Arch.Name, "the architecture to build the program for: riscv64 or arm64")
	flag.Parse()
	arch, err := machine.ArchNamed(*archName)
	if err != nil {
		fatal("-arch %v", err)
	}
	var cores []int
	for _, s := range strings.Split(*coresFlag, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || c < 1 {
			fatal("bad -cores %q", *coresFlag)
		}
		cores = append(cores, c)
	}
	dir, err := os.MkdirTemp("", "scaling-")
	if err != nil {
		fatal("%v", err)
	}
	defer os.RemoveAll(dir)
	cli, prog := filepath.Join(dir, "gometal"), filepath.Join(dir, "cpubound")
	run("go", nil, "build", "-o", cli, "./cmd/gometal")
	run("go", arch.BuildEnv(), "build", "-o", prog, "./bench/cpubound")

	results := map[int][]sample{}
	for r := 1; r <= *rounds; r++ {
		for _, c := range cores {
			args := []string{"run", "-cores", strconv.Itoa(c), "-timeout", "300s", "-kernel-args", "stats"}
			if *sched != "" {
				args = append(args, "-sched", *sched)
			}
			args = append(args, prog, "-n", *n, "-g", *g)
			s := boot(cli, args)
			results[c] = append(results[c], s)
			fmt.Fprintf(os.Stderr, "round %d/%d: %d harts: %.0f ms, busy %v%%\n", r, *rounds, c, s.ms, s.busy)
		}
	}
	base := median(results[cores[0]])
	fmt.Printf("cpubound (%s goroutines x %s iterations), median of %d alternating boots per count\n", *g, *n, *rounds)
	fmt.Printf("%6s %10s %9s  %s\n", "harts", "median_ms", "speedup", "per-hart busy % (median boot)")
	for _, c := range cores {
		m := median(results[c])
		fmt.Printf("%6d %10.0f %8.2fx  %v\n", c, m, base/m, medianBoot(results[c]).busy)
	}
}

func boot(cli string, args []string) sample {
	var buf bytes.Buffer
	lines := linesink.New(&buf) // the kernel's stats line must not be split by program output
	cmd := exec.Command(cli, args...)
	cmd.Stdout, cmd.Stderr = lines.Stream(), lines.Stream()
	err := cmd.Run()
	lines.Flush()
	out := buf.Bytes()
	if err != nil {
		fatal("gometal %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	var s sample
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		if m := msRe.FindStringSubmatch(line); m != nil && strings.HasPrefix(line, "cpubound:") {
			s.ms, _ = strconv.ParseFloat(m[1], 64)
		}
	}
	if s.ms == 0 {
		fatal("no result line in:\n%s", out)
	}
	st, err := kstats.Parse(string(out))
	if err != nil {
		fatal("%v in:\n%s", err, out)
	}
	for _, h := range st.CPUs {
		s.busy = append(s.busy, h.Busy)
	}
	return s
}

// median is the median time of the boots.
func median(ss []sample) float64 {
	var ms []float64
	for _, s := range ss {
		ms = append(ms, s.ms)
	}
	return kstats.Median(ms)
}

// medianBoot is the boot whose time is the median (the slower of the two
// middle ones for an even count), to show its per-hart busy shares.
func medianBoot(ss []sample) sample {
	c := append([]sample(nil), ss...)
	sort.Slice(c, func(i, j int) bool { return c[i].ms < c[j].ms })
	return c[len(c)/2]
}

func run(name string, env []string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		fatal("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func fatal(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "scaling: "+format+"\n", a...)
	os.Exit(1)
}
