package bench

// balance: the balancing benchmark of InfOS's future work (seed 003,
// §5.2.1; issue 25): small asynchronous I/O requests and cache-heavy
// matrix multiplication in one Go program (bench/balance), booted under
// every placement policy and under Linux at every core count, reporting
// the I/O latency and the CPU throughput of the same run side by side.

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gometal.dev/gometal/internal/bench/plot"
	"gometal.dev/gometal/internal/kstats"
)

func init() {
	register(&benchmark{name: "balance", title: "Balancing: asynchronous I/O next to cache-heavy computation (InfOS §5.2.1)",
		plan: func(s *Session) int {
			return s.O.Runs * len(s.O.Cores) * (len(kstats.SchedPolicies) + len(s.Kinds) - 1)
		}, run: runBalance})
}

// linuxRow names Linux's row in the policy tables.
const linuxRow = "Linux (EEVDF)"

// policyRows are the rows of a policy table: every gometal policy, then Linux.
func policyRows(s *Session) []placementRun {
	var cfgs []placementRun
	for _, p := range kstats.SchedPolicies {
		cfgs = append(cfgs, placementRun{Gometal, p})
	}
	if len(s.Kinds) > 1 {
		cfgs = append(cfgs, placementRun{Linux, linuxRow})
	}
	return cfgs
}

// placementRun is one row of a policy table: a kernel and, on gometal,
// the policy it was booted with.
type placementRun struct {
	kind   Kind
	policy string
}

func (c placementRun) spec(prog *Prog, cores int, args []string, s *Session) Spec {
	spec := Spec{Kind: c.kind, Cores: cores, Prog: prog, Args: args, Timeout: bootTimeout(s)}
	if c.kind == Gometal {
		spec.KernelArgs = "stats sched=" + c.policy
	}
	return spec
}

func runBalance(s *Session) Section {
	prog, err := s.M.BuildGo("balance", "./bench/balance")
	if err != nil {
		return notMeasured("building bench/balance failed", err)
	}
	secs := "4"
	if s.O.Quick {
		secs = "1.5"
	}
	args := []string{"-seconds", secs}
	cfgs := policyRows(s)
	sm := newSamples()
	key := func(policy string, cores int, what string) string {
		return fmt.Sprintf("%s/c%d/%s", policy, cores, what)
	}
	for r := 1; r <= s.O.Runs; r++ {
		for _, c := range s.O.Cores {
			for _, cfg := range cfgs {
				b := s.Boot(cfg.spec(prog, c, args, s), fmt.Sprintf("%s cores=%d run %d/%d", cfg.policy, c, r, s.O.Runs))
				if !b.OK() {
					sm.failed(key(cfg.policy, c, "p99"), b.Why())
					continue
				}
				for _, res := range b.Results {
					for _, f := range []struct{ what, field string }{{"p50", "io_p50_us"}, {"p99", "io_p99_us"}, {"mflops", "mflops"}, {"requests", "requests"}} {
						v, _ := Num(res, f.field)
						sm.add(key(cfg.policy, c, f.what), v)
					}
				}
				var mig, steal int
				for _, h := range b.CPUs {
					mig += h.Migrations
					steal += h.Steals
				}
				if len(b.CPUs) > 0 {
					sm.add(key(cfg.policy, c, "mig"), float64(mig))
					sm.add(key(cfg.policy, c, "steal"), float64(steal))
				}
			}
		}
	}
	var body strings.Builder
	fmt.Fprintf(&body, "bench/balance (`%s`): one goroutine per core multiplies its own 128×128 float64\n", strings.Join(args, " "))
	body.WriteString("matrices tile by tile (384 KiB each: the host core's L2 is the cache that\n")
	body.WriteString("matters under TCG), while 8 client goroutines per core each send a 64-byte request\n")
	body.WriteString("over their own loopback TCP connection after a random 0–2 ms think time and one\n")
	body.WriteString("server goroutine per connection echoes it; GOMAXPROCS = 2 × cores, so the I/O\n")
	body.WriteString("goroutines run on Ms of their own that the kernel must place next to the CPU\n")
	body.WriteString("workers'. I/O is the request round trip (µs, p50/p99 over the run), CPU the\n")
	body.WriteString("matrix work of all workers (Mflop/s). Ratios are to Linux in the same QEMU\n")
	body.WriteString("(p99: lower is better, ≤ 0.5 is the target; Mflop/s: higher is better, ≥ 1.0).\n")
	body.WriteString("Migrations and steals are sums over CPUs from gometal's statistics.\n\n")
	for _, c := range s.O.Cores {
		fmt.Fprintf(&body, "**%s**\n\n", plural(c))
		var rows [][]string
		for _, cfg := range cfgs {
			p := cfg.policy
			row := []string{p, sm.cell(key(p, c, "p50"), "%.0f"), sm.cell(key(p, c, "p99"), "%.0f"), sm.cell(key(p, c, "mflops"), "%.1f"),
				sm.cell(key(p, c, "requests"), "%.0f")}
			if len(s.Kinds) > 1 {
				row = append(row, sm.ratio(key(p, c, "p99"), key(linuxRow, c, "p99")), sm.ratio(key(p, c, "mflops"), key(linuxRow, c, "mflops")))
			}
			if cfg.kind == Gometal {
				row = append(row, sm.cell(key(p, c, "mig"), "%.0f"), sm.cell(key(p, c, "steal"), "%.0f"))
			} else {
				row = append(row, "n/a", "n/a")
			}
			rows = append(rows, row)
		}
		header := []string{"policy", "I/O p50 µs", "I/O p99 µs", "CPU Mflop/s", "requests"}
		if len(s.Kinds) > 1 {
			header = append(header, "p99 / Linux", "Mflop/s / Linux")
		}
		body.WriteString(table(append(header, "migrations", "steals"), rows) + "\n")
	}
	body.WriteString(noiseFloor(s, sm, key))
	body.WriteString(balancePlots(s, cfgs, sm, key))
	sec := Section{Body: body.String()}
	sec.Notes = append(sec.Notes, balanceNote(s, cfgs, sm, key))
	return sec
}

// noiseFloor says how far apart the gometal rows are at 1 core, where
// every policy places every thread on CPU 0: whatever separates them there
// is the host's noise, the yardstick for the differences at more cores.
func noiseFloor(s *Session, sm *samples, key func(string, int, string) string) string {
	if !slices.Contains(s.O.Cores, 1) {
		return ""
	}
	var p99, mf []float64
	for _, p := range kstats.SchedPolicies {
		if v, ok := sm.med(key(p, 1, "p99")); ok {
			p99 = append(p99, v)
		}
		if v, ok := sm.med(key(p, 1, "mflops")); ok {
			mf = append(mf, v)
		}
	}
	if len(p99) < 2 || len(mf) < 2 {
		return ""
	}
	return fmt.Sprintf("At 1 core every policy makes the same choice (CPU 0), so the spread of the gometal rows there — I/O p99 %.0f–%.0f µs, %.1f–%.1f Mflop/s — is this run's noise: differences between policies smaller than that mean nothing.\n\n",
		slices.Min(p99), slices.Max(p99), slices.Min(mf), slices.Max(mf))
}

// balancePlots draws I/O p99 and CPU throughput against cores, one line
// per policy (and Linux).
func balancePlots(s *Session, cfgs []placementRun, sm *samples, key func(string, int, string) string) string {
	var out strings.Builder
	for _, fig := range []struct{ what, title, ylabel, file string }{
		{"p99", "balance: I/O round trip p99 vs cores", "us (log)", "bench-balance-io.png"},
		{"mflops", "balance: CPU throughput vs cores", "Mflop/s", "bench-balance-cpu.png"},
	} {
		ch := &plot.Chart{Title: fig.title, XLabel: "cores (-smp)", YLabel: fig.ylabel, LogY: fig.what == "p99"}
		for _, c := range s.O.Cores {
			ch.XTicks = append(ch.XTicks, float64(c))
		}
		for i, cfg := range cfgs {
			ser := plot.Series{Name: cfg.policy, Color: plot.Palette[i%len(plot.Palette)], Dashed: cfg.kind == Linux}
			for _, c := range s.O.Cores {
				if m, ok := sm.med(key(cfg.policy, c, fig.what)); ok {
					ser.X = append(ser.X, float64(c))
					ser.Y = append(ser.Y, m)
				}
			}
			ch.Series = append(ch.Series, ser)
		}
		if err := ch.Save(filepath.Join(s.OutDir, fig.file)); err != nil {
			fmt.Fprintf(&out, "(plot failed: %v)\n\n", err)
		} else {
			fmt.Fprintf(&out, "![%s](%s)\n\n", fig.title, fig.file)
		}
	}
	return out.String()
}

// balanceNote is the summary line: at the largest core count, the best
// fixed policy on each figure, adaptive, and Linux.
func balanceNote(s *Session, cfgs []placementRun, sm *samples, key func(string, int, string) string) string {
	c := s.MaxCores()
	var parts []string
	for _, cfg := range cfgs {
		p99, ok1 := sm.med(key(cfg.policy, c, "p99"))
		mf, ok2 := sm.med(key(cfg.policy, c, "mflops"))
		if ok1 && ok2 {
			parts = append(parts, fmt.Sprintf("%s %.0f µs / %.1f", cfg.policy, p99, mf))
		}
	}
	return fmt.Sprintf("Balance (%s, I/O p99 / CPU Mflop/s): %s.", plural(c), strings.Join(parts, ", "))
}
