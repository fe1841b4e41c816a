package bench

// wakelat: how long a thread woken while CPUs idle takes to run
// (bench/wakelat), on gometal with and without the wake hand-off
// (`wakesteal=`, kernel/src/sched/place.rs) and on Linux, at the largest
// core count; with gometal's own wake statistics, which say which stage
// of a slow wakeup waited.

import (
	"fmt"
	"strings"

	"gometal.dev/gometal/internal/kstats"
)

func init() {
	register(&benchmark{name: "wakelat", title: "Waking a thread while CPUs idle: the hand-off",
		plan: func(s *Session) int { return s.O.Runs * (2 + len(s.Kinds) - 1) }, run: runWakelat})
}

var wakelatModes = []string{"spin", "block"}

// wakelatRun is one row: a kernel and its arguments.
type wakelatRun struct {
	name  string
	kind  Kind
	kargs string
}

func runWakelat(s *Session) Section {
	prog, err := s.M.BuildGo("wakelat", "./bench/wakelat")
	if err != nil {
		return notMeasured("building bench/wakelat failed", err)
	}
	args := []string{"-rounds", "2000"}
	if s.O.Quick {
		args = []string{"-rounds", "500"}
	}
	runs := []wakelatRun{{"gometal, hand-off", Gometal, "stats"}, {"gometal, no hand-off", Gometal, "stats wakesteal=off"}}
	if len(s.Kinds) > 1 {
		runs = append(runs, wakelatRun{"Linux", Linux, ""})
	}
	N := s.MaxCores()
	sm := newSamples()
	stats := map[string][]*kstats.Stats{}
	key := func(run, mode, what string) string { return run + "/" + mode + "/" + what }
	for r := 1; r <= s.O.Runs; r++ {
		for _, run := range runs {
			spec := Spec{Kind: run.kind, Cores: N, Prog: prog, Args: args, KernelArgs: run.kargs, Timeout: bootTimeout(s)}
			b := s.Boot(spec, fmt.Sprintf("%s cores=%d run %d/%d", run.name, N, r, s.O.Runs))
			if !b.OK() {
				for _, m := range wakelatModes {
					sm.failed(key(run.name, m, "p99_us"), b.Why())
				}
				continue
			}
			for _, res := range b.Results {
				m := Str(res, "mode")
				for _, f := range []string{"p50_us", "p90_us", "p99_us", "max_us"} {
					v, _ := Num(res, f)
					sm.add(key(run.name, m, f), v)
				}
				over, _ := Num(res, "over_100us")
				n, _ := Num(res, "samples")
				if n > 0 {
					sm.add(key(run.name, m, "over"), 100*over/n)
				}
			}
			if b.Stats != nil {
				stats[run.name] = append(stats[run.name], b.Stats)
			}
		}
	}
	var body strings.Builder
	fmt.Fprintf(&body, "bench/wakelat (`%s`) at %s: a thread locked to its OS thread sleeps a random\n", strings.Join(args, " "), plural(N))
	body.WriteString("0.2–1.7 ms in nanosleep(2), then FUTEX_WAKEs another that waits in FUTEX_WAIT; the\n")
	body.WriteString("sample is from the waker's clock reading before the wake to the waiter's after it\n")
	body.WriteString("(guest clock, µs). Nothing else runs, so CPUs idle and nap at every wakeup. *spin*:\n")
	body.WriteString("the waker keeps its CPU busy until the waiter answers (Go's wakep); *block*: it blocks\n")
	body.WriteString("for the answer (a hand-over). \"no hand-off\" is gometal with `wakesteal=off`: a woken\n")
	body.WriteString("thread whose CPU naps waits for that CPU. Target: p99 ≤ 100 µs.\n\n")
	var rows [][]string
	for _, m := range wakelatModes {
		for _, run := range runs {
			rows = append(rows, []string{m, run.name, sm.cell(key(run.name, m, "p50_us"), "%.0f"), sm.cell(key(run.name, m, "p90_us"), "%.0f"),
				sm.cell(key(run.name, m, "p99_us"), "%.0f"), sm.cell(key(run.name, m, "max_us"), "%.0f"), sm.cell(key(run.name, m, "over"), "%.1f%%")})
		}
	}
	body.WriteString(table([]string{"mode", "kernel", "p50 µs", "p90 µs", "p99 µs", "max µs", "> 100 µs"}, rows) + "\n")
	body.WriteString(wakeStages(runs, stats))
	sec := Section{Body: body.String()}
	var parts []string
	for _, run := range runs {
		parts = append(parts, fmt.Sprintf("%s %s/%s", run.name, sm.cell(key(run.name, "spin", "p99_us"), "%.0f"), sm.cell(key(run.name, "block", "p99_us"), "%.0f")))
	}
	sec.Notes = append(sec.Notes, fmt.Sprintf("Wake with CPUs idle (%s, p99 µs spin/block): %s.", plural(N), strings.Join(parts, ", ")))
	return sec
}

// wakeStages sums gometal's wake statistics over each configuration's
// boots: where the wakeups that took long waited.
func wakeStages(runs []wakelatRun, stats map[string][]*kstats.Stats) string {
	var rows [][]string
	hist := func(name, what string, h kstats.WakeDelay) {
		row := []string{name, what}
		for _, c := range h.Counts {
			row = append(row, fmt.Sprint(c))
		}
		rows = append(rows, append(row, fmt.Sprint(h.MaxUS)))
	}
	var handoffs []string
	for _, run := range runs {
		list := stats[run.name]
		if len(list) == 0 {
			continue
		}
		var idle, ipi, awake, hand kstats.WakeDelay
		var h kstats.Handoff
		for _, st := range list {
			idle, ipi, awake = addHist(idle, st.WakeDelayIdleCPU), addHist(ipi, st.IPIToAwake), addHist(awake, st.AwakeToRun)
			hand = addHist(hand, st.Handoff.Delay)
			h.ByWakerCPU += st.Handoff.ByWakerCPU
			h.ByOtherCPU += st.Handoff.ByOtherCPU
			h.Preempts += st.Handoff.Preempts
		}
		hist(run.name, "wake-to-run, a CPU idle", idle)
		hist(run.name, "IPI sent → napping CPU awake", ipi)
		hist(run.name, "awake → thread running", awake)
		if h.ByWakerCPU+h.ByOtherCPU > 0 {
			hist(run.name, "hand-offs: wake-to-run", hand)
			handoffs = append(handoffs, fmt.Sprintf("%s: %d hand-offs run by the waker's CPU, %d by another CPU (the napping one, once awake, or any idle one); the waker's CPU preempted its thread for one %d times", run.name, h.ByWakerCPU, h.ByOtherCPU, h.Preempts))
		}
	}
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("gometal's wake statistics (`-kernel-args stats`), summed over the boots; every\nwakeup of the run counts, the Go runtime's own included:\n\n")
	b.WriteString(table([]string{"kernel", "stage", "<16µs", "<64µs", "<256µs", "<1ms", "<4ms", "<16ms", "≥16ms", "max µs"}, rows) + "\n")
	for _, h := range handoffs {
		b.WriteString("- " + h + "\n")
	}
	return b.String() + "\n"
}

func addHist(a, b kstats.WakeDelay) kstats.WakeDelay {
	if len(a.Counts) < len(b.Counts) {
		a.Counts = append(a.Counts, make([]int, len(b.Counts)-len(a.Counts))...)
	}
	for i, c := range b.Counts {
		a.Counts[i] += c
	}
	a.MaxUS = max(a.MaxUS, b.MaxUS)
	a.BoundsUS = b.BoundsUS
	return a
}
