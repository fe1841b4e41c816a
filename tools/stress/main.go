// Command stress boots gometal's SMP stress programs (tests/progs/gcheavy,
// tests/progs/arith and tests/progs/wakerace) over and over at -cores 4,
// cycling through every thread placement policy, to shake out races in the
// kernel's SMP scheduler that a single boot of `make test` rarely hits: lost
// wakeups (hangs), signals racing futex waits, timers racing wakeups,
// threads exiting together, corrupted registers or memory (wrong sums,
// checksums, crashes), kernel panics.
// `-progs fuzz` boots the syscall fuzzer (tests/progs/fuzz) instead, each
// boot with its number as the seed and -fuzz-calls calls from 8 threads;
// the summary then adds the total calls made (`make stress` runs 10 x 100,000).
//
//	go run ./tools/stress                       # 200 boots, 2 QEMUs at a time
//	go run ./tools/stress -runs 40 -parallel 2
//	go run ./tools/stress -duration 30m         # until the time is up
//	go run ./tools/stress -progs gcheavy -policies random,affinity
//	go run ./tools/stress -arch arm64 -runs 40  # linux/arm64 programs on the arm64 kernel
//
// It builds the gometal CLI and the programs once. Every boot that fails
// (non-zero exit, no `PASS <name>` line, fewer harts online than -cores in
// the kernel's stats, or a hang: the -timeout, exit 124)
// has its whole console saved under -logs (default stress-logs/), and the
// path is printed. At the end a table lists, per program and policy, the
// runs, failures, hangs and median boot time, then the line
// `stress: N runs, F failures, H hangs`. The exit status is 1 if anything
// failed. `make stress` runs it with the kernel that `make kernel` built
// (GOMETAL_KERNEL); without GOMETAL_KERNEL it finds or builds the kernel the
// way the CLI does.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"gometal.dev/gometal/internal/gobuild"
	"gometal.dev/gometal/internal/kernelimage"
	"gometal.dev/gometal/internal/kstats"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

type config struct {
	runs     int
	duration time.Duration
	parallel int
	timeout  time.Duration
	cores    int
	mem      string
	logs     string
	progs    []string
	policies []string
	cli      string
	kernel   string
	verbose  bool
	// fuzzCalls is how many calls each boot of tests/progs/fuzz makes.
	fuzzCalls int
	// arch is what the programs are built for and which kernel boots them.
	arch *machine.Arch
}

// result is one boot.
type result struct {
	n        int // 1-based boot number
	prog     string
	policy   string
	status   int // exit status; -1 if killed or not run
	dur      time.Duration
	failed   bool
	hang     bool
	reason   string
	log      string // saved console, for failures
	canceled bool   // interrupted by Ctrl-C: not counted
}

func main() {
	var cfg config
	var progs, policies, archName string
	flag.IntVar(&cfg.runs, "runs", 200, "total boots (with -duration: at most this many, if given)")
	flag.DurationVar(&cfg.duration, "duration", 0, "keep booting until this much time has passed (e.g. 30m)")
	flag.IntVar(&cfg.parallel, "parallel", 2, "QEMUs at once")
	flag.DurationVar(&cfg.timeout, "timeout", 60*time.Second, "per-boot timeout (gometal -timeout); running into it is a hang")
	flag.IntVar(&cfg.cores, "cores", 4, "harts per boot")
	flag.StringVar(&cfg.mem, "mem", "256M", "memory per boot")
	flag.StringVar(&cfg.logs, "logs", "stress-logs", "directory for the consoles of failed boots")
	flag.StringVar(&progs, "progs", "gcheavy,arith,wakerace", "programs under tests/progs to boot, in turn")
	flag.StringVar(&policies, "policies", strings.Join(kstats.SchedPolicies, ","), "placement policies to cycle through")
	flag.StringVar(&cfg.cli, "cli", "", "use this gometal binary instead of building ./cmd/gometal")
	flag.StringVar(&cfg.kernel, "kernel", "", "boot this kernel ELF (default $GOMETAL_KERNEL, $GOMETAL_KERNEL_ARM64 for arm64, else the checkout's, built with cargo if need be)")
	flag.StringVar(&archName, "arch", machine.Default().Arch.Name, "the architecture to build the programs for and boot: riscv64 or arm64")
	flag.BoolVar(&cfg.verbose, "v", false, "print each boot's command")
	flag.IntVar(&cfg.fuzzCalls, "fuzz-calls", 100000, "system calls per boot of the fuzz program (seeded with the boot number)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run ./tools/stress [flags]\n\nBoots gometal's SMP stress programs repeatedly at -cores 4 under every placement policy.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	runsSet := false
	flag.Visit(func(f *flag.Flag) { runsSet = runsSet || f.Name == "runs" })
	if cfg.duration > 0 && !runsSet {
		cfg.runs = 0 // no cap
	}
	var err error
	if cfg.arch, err = machine.ArchNamed(archName); err != nil {
		die(2, "-arch %v", err)
	}
	cfg.progs = splitList(progs)
	cfg.policies = splitList(policies)
	switch {
	case len(cfg.progs) == 0 || len(cfg.policies) == 0:
		die(2, "-progs and -policies must name at least one each")
	case cfg.runs < 0 || (cfg.runs == 0 && cfg.duration <= 0):
		die(2, "-runs must be positive (or give -duration)")
	case cfg.parallel < 1:
		die(2, "-parallel must be at least 1")
	case cfg.timeout <= 0:
		die(2, "-timeout must be positive")
	}
	for _, p := range cfg.policies {
		if !slices.Contains(kstats.SchedPolicies, p) {
			die(2, "unknown policy %q (want one of %s)", p, strings.Join(kstats.SchedPolicies, ", "))
		}
	}
	os.Exit(run(cfg))
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func die(code int, format string, a ...any) {
	fmt.Fprintf(os.Stderr, "stress: "+format+"\n", a...)
	os.Exit(code)
}

func run(cfg config) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	root, err := gobuild.ModuleRoot()
	if err != nil {
		die(1, "%v", err)
	}
	if _, err := qemu.Find("", cfg.arch); err != nil {
		die(1, "%v (or `make deps`)", err)
	}
	work, err := os.MkdirTemp("", "gometal-stress-")
	if err != nil {
		die(1, "%v", err)
	}
	defer os.RemoveAll(work)

	t0 := time.Now()
	cli, bins, kernel, err := build(ctx, cfg, root, work)
	if err != nil {
		fmt.Fprintf(os.Stderr, "stress: %v\n", err)
		return 1
	}
	logDir := cfg.logs
	if !filepath.IsAbs(logDir) {
		logDir = filepath.Join(root, logDir)
	}
	limit := fmt.Sprintf("%d runs", cfg.runs)
	if cfg.duration > 0 {
		limit = "for " + cfg.duration.String()
		if cfg.runs > 0 {
			limit += fmt.Sprintf(" (at most %d runs)", cfg.runs)
		}
	}
	fmt.Printf("stress: built in %.1fs; kernel %s\n", time.Since(t0).Seconds(), kernel)
	fmt.Printf("stress: %s of %s × %s on %s at -cores %d, %d at a time, timeout %v; failed consoles go to %s\n",
		limit, strings.Join(cfg.progs, ","), strings.Join(cfg.policies, ","), cfg.arch.Name, cfg.cores, cfg.parallel, cfg.timeout, rel(root, logDir))

	var (
		next     atomic.Int64 // boots handed out
		deadline time.Time
		mu       sync.Mutex
		results  []result
		done     int
		failures int
		hangs    int
		wg       sync.WaitGroup
	)
	if cfg.duration > 0 {
		deadline = time.Now().Add(cfg.duration)
	}
	start := time.Now()
	for w := 0; w < cfg.parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if !deadline.IsZero() && time.Now().After(deadline) {
					return
				}
				i := int(next.Add(1)) - 1
				if cfg.runs > 0 && i >= cfg.runs {
					return
				}
				// Cycle programs fastest, then policies: every program meets
				// every policy within len(progs)*len(policies) boots.
				prog := cfg.progs[i%len(cfg.progs)]
				policy := cfg.policies[(i/len(cfg.progs))%len(cfg.policies)]
				r := boot(ctx, cfg, bootJob{root: root, cli: cli, kernel: kernel, bin: bins[prog],
					prog: prog, policy: policy, n: i + 1, logDir: logDir})
				if r.canceled {
					return
				}
				mu.Lock()
				results = append(results, r)
				done++
				if r.failed {
					failures++
				}
				if r.hang {
					hangs++
				}
				total := fmt.Sprint(cfg.runs)
				if cfg.runs == 0 {
					total = "?"
				}
				verdict := "ok"
				if r.failed {
					verdict = "FAIL: " + r.reason
					if r.log != "" {
						verdict += " -> " + rel(root, r.log)
					}
				}
				fmt.Printf("[%4d/%s] #%-4d %-8s %-12s %5.1fs  %s   (%d failed, %d hung, %s elapsed)\n",
					done, total, r.n, prog, policy, r.dur.Seconds(), verdict, failures, hangs,
					time.Since(start).Round(time.Second))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		fmt.Println("stress: interrupted; summary of the boots that finished:")
	}
	return summarize(cfg, results, time.Since(start))
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// build builds the CLI and the programs (in parallel) and finds the kernel.
func build(ctx context.Context, cfg config, root, work string) (cli string, bins map[string]string, kernel string, err error) {
	cli = filepath.Join(work, "gometal")
	progDir := filepath.Join(work, "progs") + string(filepath.Separator)
	bins = map[string]string{}
	var jobs []gobuild.Job
	if cfg.cli != "" {
		if cli, err = filepath.Abs(cfg.cli); err != nil {
			return "", nil, "", err
		}
	} else {
		jobs = append(jobs, gobuild.Job{What: "the gometal CLI", Args: []string{"build", "-o", cli, "./cmd/gometal"}})
	}
	pkgs := []string{"build", "-o", progDir}
	for _, p := range cfg.progs {
		if _, err := os.Stat(filepath.Join(root, "tests", "progs", p, "main.go")); err != nil {
			return "", nil, "", fmt.Errorf("no program tests/progs/%s", p)
		}
		pkgs = append(pkgs, "./tests/progs/"+p)
		bins[p] = filepath.Join(progDir, p)
	}
	jobs = append(jobs, gobuild.Job{What: "the stress programs", Env: cfg.arch.BuildEnv(), Args: pkgs})
	err = gobuild.RunAll(ctx, root, jobs, func() error {
		// -kernel, else GOMETAL_KERNEL, else the checkout's kernel (built
		// with cargo if need be), as the CLI finds it from the module root.
		f := kernelimage.NewFor(cfg.arch.Name, nil)
		f.Getwd = func() (string, error) { return root, nil }
		k, err := f.Find(cfg.kernel)
		if err == nil {
			k, err = filepath.Abs(k)
		}
		if err != nil {
			return fmt.Errorf("finding the kernel: %v", err)
		}
		kernel = k
		return nil
	})
	if err != nil {
		return "", nil, "", err
	}
	return cli, bins, kernel, nil
}

func summarize(cfg config, results []result, elapsed time.Duration) int {
	type key struct{ prog, policy string }
	type row struct {
		runs, failures, hangs int
		durs                  []float64
	}
	rows := map[key]*row{}
	var logs []string
	failures, hangs := 0, 0
	for _, r := range results {
		k := key{r.prog, r.policy}
		if rows[k] == nil {
			rows[k] = &row{}
		}
		w := rows[k]
		w.runs++
		w.durs = append(w.durs, r.dur.Seconds())
		if r.failed {
			w.failures++
			failures++
			if r.log != "" {
				logs = append(logs, r.log)
			}
		}
		if r.hang {
			w.hangs++
			hangs++
		}
	}
	fmt.Printf("\n%-10s %-13s %5s %9s %6s %9s %7s\n", "program", "policy", "runs", "failures", "hangs", "median_s", "max_s")
	for _, prog := range cfg.progs {
		for _, policy := range cfg.policies {
			w := rows[key{prog, policy}]
			if w == nil {
				continue
			}
			fmt.Printf("%-10s %-13s %5d %9d %6d %9.2f %7.2f\n", prog, policy, w.runs, w.failures, w.hangs,
				kstats.Median(w.durs), slices.Max(w.durs))
		}
	}
	if len(logs) > 0 {
		fmt.Println("\nconsoles of the failed boots:")
		for _, l := range logs {
			fmt.Println("  " + l)
		}
	}
	fmt.Printf("\nstress: %d runs, %d failures, %d hangs (%s, host %s/%s, %d CPUs)\n",
		len(results), failures, hangs, elapsed.Round(time.Second), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fuzzed := 0
	for _, r := range results {
		if r.prog == "fuzz" && !r.failed {
			fuzzed++
		}
	}
	if fuzzed > 0 {
		fmt.Printf("stress: fuzz: %d boots completed %d system calls in all\n", fuzzed, fuzzed*cfg.fuzzCalls)
	}
	if failures > 0 || len(results) == 0 {
		return 1
	}
	return 0
}
