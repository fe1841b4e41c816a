package bench

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"gometal.dev/gometal/internal/bench/plot"
)

var mandelGs = []int{1, 2, 4, 8, 16, 32}
var mandelModes = []string{"fixed", "float"}

func init() {
	register(&benchmark{
		name:  "mandelbrot",
		title: "Mandelbrot (InfOS work list): scaling with cores",
		plan:  func(s *Session) int { return s.O.Runs*len(s.O.Cores)*len(s.Kinds) + 1 },
		run:   runMandelbrot,
	})
}

func mandelArgs(quick bool) []string {
	gs := make([]string, len(mandelGs))
	for i, g := range mandelGs {
		gs[i] = fmt.Sprint(g)
	}
	args := []string{"-g", strings.Join(gs, ",")}
	if quick {
		args = append(args, "-fixed", "1024x768x512", "-float", "160x120x512")
	}
	return args
}

// hartSummary condenses gometal's per-hart statistics of one boot.
func hartSummary(b *Boot) []string {
	var busy []string
	var sys, intr, mig, steal, ipi int
	for _, h := range b.CPUs {
		busy = append(busy, fmt.Sprintf("%d%%", h.Busy))
		sys += h.Syscalls
		intr += h.Interrupts
		mig += h.Migrations
		steal += h.Steals
		ipi += h.IPIsSent
	}
	return []string{strings.Join(busy, " "), fmt.Sprint(sys), fmt.Sprint(intr), fmt.Sprint(mig), fmt.Sprint(steal), fmt.Sprint(ipi)}
}

// plural says "1 core" or "N cores".
func plural(c int) string {
	if c == 1 {
		return "1 core"
	}
	return fmt.Sprintf("%d cores", c)
}

// mandelKey names one measurement: kernel, arithmetic mode, goroutines, cores.
func mandelKey(k Kind, mode string, g, c int) string {
	return fmt.Sprintf("%s/%s/g%d/c%d", k, mode, g, c)
}

func runMandelbrot(s *Session) Section {
	var sec Section
	prog, err := s.M.BuildGo("mandelbrot", "./bench/mandelbrot")
	if err != nil {
		sec.Body = "Not measured: building bench/mandelbrot failed: " + err.Error()
		return sec
	}
	args := mandelArgs(s.O.Quick)
	timeout := 10 * time.Minute
	if s.O.Quick {
		timeout = 5 * time.Minute
	}
	sm, stats := measureMandelbrot(s, prog, args, timeout)

	var body strings.Builder
	fmt.Fprintf(&body, "The InfOS work-list algorithm: a shared `next_pixel` counter advanced with an\n")
	fmt.Fprintf(&body, "atomic add; each of G goroutines takes the next pixel until the picture is done\n")
	fmt.Fprintf(&body, "(bench/mandelbrot). One boot renders the picture for every G and both\n")
	fmt.Fprintf(&body, "arithmetic modes; arguments: `%s`.\n", strings.Join(args, " "))
	if !s.O.Quick {
		body.WriteString("Pictures: fixed point (Q4.28 in int64) 2048×1536, float64 320×240, both up to\n1024 iterations — sized so that one hart takes seconds for each G.\n")
	}
	body.WriteString("\n")
	for _, mode := range mandelModes {
		sec.Notes = append(sec.Notes, writeMandelMode(&body, s, sm, mode)...)
	}
	writeMandelStats(&body, s, stats)
	writeMandelTrace(&body, s, prog, args, timeout)
	sec.Body = body.String()
	return sec
}

// measureMandelbrot boots the program -runs times at each core count on
// each kernel: the samples by mandelKey, and gometal's last boot at each
// core count (its per-hart statistics).
func measureMandelbrot(s *Session, prog *Prog, args []string, timeout time.Duration) (*samples, map[int]*Boot) {
	sm := newSamples()
	stats := map[int]*Boot{}
	for r := 1; r <= s.O.Runs; r++ {
		for _, c := range s.O.Cores {
			for _, k := range s.Kinds {
				b := s.Boot(Spec{Kind: k, Cores: c, Prog: prog, Args: args, KernelArgs: "stats", Timeout: timeout},
					fmt.Sprintf("cores=%d run %d/%d", c, r, s.O.Runs))
				if !b.OK() {
					for _, m := range mandelModes {
						for _, g := range mandelGs {
							sm.failed(mandelKey(k, m, g, c), b.Why())
						}
					}
					continue
				}
				for _, res := range b.Results {
					g, _ := Num(res, "g")
					ms, _ := Num(res, "ms")
					sm.add(mandelKey(k, Str(res, "mode"), int(g), c), ms)
				}
				if k == Gometal {
					stats[c] = b
				}
			}
		}
	}
	return sm, stats
}

// writeMandelMode writes one arithmetic mode's tables and plot, and
// returns its summary notes.
func writeMandelMode(body *strings.Builder, s *Session, sm *samples, mode string) []string {
	fmt.Fprintf(body, "### %s: time (ms)\n\n", mode)
	header := []string{"G"}
	for _, k := range s.Kinds {
		for _, c := range s.O.Cores {
			header = append(header, fmt.Sprintf("%s %s", k, plural(c)))
		}
	}
	var rows [][]string
	for _, g := range mandelGs {
		row := []string{fmt.Sprint(g)}
		for _, k := range s.Kinds {
			for _, c := range s.O.Cores {
				row = append(row, sm.cell(mandelKey(k, mode, g, c), "%.0f"))
			}
		}
		rows = append(rows, row)
	}
	body.WriteString(table(header, rows) + "\n")
	if len(s.O.Cores) > 1 {
		writeMandelGain(body, s, sm, mode)
	}
	var notes []string
	if len(s.Kinds) > 1 {
		notes = writeMandelRatio(body, s, sm, mode)
	}
	writeMandelPlot(body, s, sm, mode)
	return notes
}

// writeMandelGain writes the time saved by each added core.
func writeMandelGain(body *strings.Builder, s *Session, sm *samples, mode string) {
	fmt.Fprintf(body, "%% gained by each added core (time saved relative to the previous core count, per core added):\n\n")
	header := []string{"G"}
	for _, k := range s.Kinds {
		for i := 1; i < len(s.O.Cores); i++ {
			header = append(header, fmt.Sprintf("%s %d→%d", k, s.O.Cores[i-1], s.O.Cores[i]))
		}
	}
	var rows [][]string
	for _, g := range mandelGs {
		row := []string{fmt.Sprint(g)}
		for _, k := range s.Kinds {
			for i := 1; i < len(s.O.Cores); i++ {
				a, ok1 := sm.med(mandelKey(k, mode, g, s.O.Cores[i-1]))
				b, ok2 := sm.med(mandelKey(k, mode, g, s.O.Cores[i]))
				if !ok1 || !ok2 {
					row = append(row, "—")
					continue
				}
				added := float64(s.O.Cores[i] - s.O.Cores[i-1])
				row = append(row, fmt.Sprintf("%+.0f%%", (a-b)/a*100/added))
			}
		}
		rows = append(rows, row)
	}
	body.WriteString(table(header, rows) + "\n")
}

// writeMandelRatio writes gometal's time over Linux's and returns the
// summary note for the most goroutines.
func writeMandelRatio(body *strings.Builder, s *Session, sm *samples, mode string) []string {
	fmt.Fprintf(body, "gometal / Linux time ratio of the medians (below 1: gometal faster; in parentheses the ratio of the best runs, the ones least disturbed by other work on the host):\n\n")
	header := []string{"G"}
	for _, c := range s.O.Cores {
		header = append(header, plural(c))
	}
	var rows [][]string
	for _, g := range mandelGs {
		row := []string{fmt.Sprint(g)}
		for _, c := range s.O.Cores {
			row = append(row, sm.ratioBoth(mandelKey(Gometal, mode, g, c), mandelKey(Linux, mode, g, c)))
		}
		rows = append(rows, row)
	}
	body.WriteString(table(header, rows) + "\n")
	var parts []string
	gMax := mandelGs[len(mandelGs)-1]
	for _, c := range s.O.Cores {
		parts = append(parts, fmt.Sprintf("%s %s", plural(c), sm.ratioBoth(mandelKey(Gometal, mode, gMax, c), mandelKey(Linux, mode, gMax, c))))
	}
	return []string{fmt.Sprintf("Mandelbrot %s, G=%d, gometal/Linux time: %s.", mode, gMax, strings.Join(parts, ", "))}
}

// writeMandelPlot plots time against cores, G=1 dashed, G=4 and the most
// goroutines solid, per kernel.
func writeMandelPlot(body *strings.Builder, s *Session, sm *samples, mode string) {
	ch := &plot.Chart{Title: fmt.Sprintf("Mandelbrot (%s): time vs cores, median of %d", mode, s.O.Runs),
		XLabel: "cores (-smp)", YLabel: "ms"}
	for _, c := range s.O.Cores {
		ch.XTicks = append(ch.XTicks, float64(c))
	}
	for ki, k := range s.Kinds {
		for _, g := range []int{1, 4, mandelGs[len(mandelGs)-1]} {
			ser := plot.Series{Name: fmt.Sprintf("%s G=%d", k, g), Color: plot.Palette[ki], Dashed: g == 1}
			if g == 4 {
				ser.Color = plot.Palette[ki+2]
			}
			for _, c := range s.O.Cores {
				if m, ok := sm.med(mandelKey(k, mode, g, c)); ok {
					ser.X = append(ser.X, float64(c))
					ser.Y = append(ser.Y, m)
				}
			}
			ch.Series = append(ch.Series, ser)
		}
	}
	png := fmt.Sprintf("bench-mandelbrot-%s.png", mode)
	if err := ch.Save(filepath.Join(s.OutDir, png)); err != nil {
		fmt.Fprintf(body, "(plot failed: %v)\n\n", err)
	} else {
		fmt.Fprintf(body, "![Mandelbrot %s: time vs cores](%s)\n\n", mode, png)
	}
}

// writeMandelStats writes gometal's per-hart accounting of its last boot
// at each core count.
func writeMandelStats(body *strings.Builder, s *Session, stats map[int]*Boot) {
	if len(stats) == 0 {
		return
	}
	body.WriteString("### Where the time goes on gometal\n\n")
	body.WriteString("Per-hart accounting (`-kernel-args stats`) of the last gometal boot at each core\n")
	body.WriteString("count (the whole boot: both modes, every G):\n\n")
	var rows [][]string
	for _, c := range s.O.Cores {
		if b := stats[c]; b != nil {
			rows = append(rows, append([]string{fmt.Sprint(c)}, hartSummary(b)...))
		}
	}
	body.WriteString(table([]string{"cores", "busy % per hart", "syscalls", "interrupts", "migrations", "steals", "IPIs"}, rows) + "\n")
	for _, c := range s.O.Cores {
		if b := stats[c]; b != nil && b.Top != "" {
			fmt.Fprintf(body, "- %d cores, most frequent system calls: %s\n", c, b.Top)
		}
	}
	body.WriteString("\n")
}

// writeMandelTrace boots gometal once more with `trace` and writes which
// system calls the program makes.
func writeMandelTrace(body *strings.Builder, s *Session, prog *Prog, args []string, timeout time.Duration) {
	b := s.Boot(Spec{Kind: Gometal, Cores: s.MaxCores(), Prog: prog, Args: args, KernelArgs: "trace", Timeout: timeout},
		fmt.Sprintf("cores=%d with trace (syscall profile)", s.MaxCores()))
	if counts, total := syscallProfile(b.Output); total > 0 {
		fmt.Fprintf(body, "System calls of one whole boot at %d cores (`-kernel-args trace`, %d calls in all; the\nrest of the time is user code):\n\n", s.MaxCores(), total)
		var rows [][]string
		for i, c := range counts {
			if i == 12 {
				break
			}
			rows = append(rows, []string{c.name, fmt.Sprint(c.n)})
		}
		body.WriteString(table([]string{"syscall", "calls"}, rows) + "\n")
	} else if !b.OK() {
		fmt.Fprintf(body, "(The trace boot failed: %s.)\n\n", b.Why())
	}
}

type sysCount struct {
	name string
	n    int
}

var traceRe = regexp.MustCompile(`^\[tid \d+\] ([a-z_0-9]+)\(`)

// syscallProfile counts the system calls in a `trace` log, most frequent first.
func syscallProfile(out string) ([]sysCount, int) {
	m := map[string]int{}
	total := 0
	for _, l := range strings.Split(out, "\n") {
		if mm := traceRe.FindStringSubmatch(strings.TrimSpace(l)); mm != nil {
			m[mm[1]]++
			total++
		}
	}
	var c []sysCount
	for k, v := range m {
		c = append(c, sysCount{k, v})
	}
	sort.Slice(c, func(i, j int) bool { return c[i].n > c[j].n || c[i].n == c[j].n && c[i].name < c[j].name })
	return c, total
}
