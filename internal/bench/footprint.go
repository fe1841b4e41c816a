package bench

import (
	"debug/elf"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"gometal.dev/gometal/internal/bench/plot"
	"gometal.dev/gometal/internal/linuxkernel"
)

func init() {
	register(&benchmark{name: "footprint", title: "Footprint: image sizes, memory, boot time",
		plan: func(s *Session) int { return s.O.Runs*2*len(s.Kinds) + 8*len(s.Kinds) }, run: runFootprint})
	register(&benchmark{name: "micro", title: "Micro-benchmarks: switches, threads, syscalls, futex, timers",
		plan: func(s *Session) int { return s.O.Runs * len(s.Kinds) }, run: runMicro})
}

func runFootprint(s *Session) Section {
	prog, err := s.M.BuildGo("hello", "./bench/hello")
	if err != nil {
		return notMeasured("building bench/hello failed", err)
	}
	stripped, serr := s.M.BuildGo("hello-stripped", "./bench/hello", "-ldflags=-s -w")
	N := s.MaxCores()
	cores := []int{1}
	if N > 1 {
		cores = append(cores, N)
	}
	sm := measureFootprint(s, prog, cores)
	// Smallest -m, by bisection on whole MiB.
	res := 1
	if s.O.Quick {
		res = 8
	}
	smallest := map[Kind]string{}
	for _, k := range s.Kinds {
		smallest[k] = bisectMem(s, k, prog, res)
	}

	var body strings.Builder
	writeImageSizes(&body, s, prog, stripped, serr)
	writeBootMemory(&body, s, sm, cores)
	fmt.Fprintf(&body, "Smallest `-m` at which hello runs (bisection in %d MiB steps, 1 core):\n\n", res)
	var rows [][]string
	for _, k := range s.Kinds {
		rows = append(rows, []string{string(k), smallest[k]})
	}
	body.WriteString(table([]string{"kernel", "smallest -m"}, rows))
	sec := Section{Body: body.String()}
	note := fmt.Sprintf("Footprint: smallest -m for hello: gometal %s", firstWord(smallest[Gometal]))
	if len(s.Kinds) > 1 {
		note += fmt.Sprintf(", Linux %s", firstWord(smallest[Linux]))
		note += fmt.Sprintf("; boot to main (1 core): gometal %s ms, Linux %s ms", sm.cell("gometal/c1/boot", "%.0f"), sm.cell("linux/c1/boot", "%.0f"))
	}
	sec.Notes = append(sec.Notes, note+".")
	return sec
}

// measureFootprint boots hello -runs times at each core count on each
// kernel: boot time, wall time and memory, by "kind/cN/figure".
func measureFootprint(s *Session, prog *Prog, cores []int) *samples {
	sm := newSamples()
	for r := 1; r <= s.O.Runs; r++ {
		for _, c := range cores {
			for _, k := range s.Kinds {
				spec := Spec{Kind: k, Cores: c, Prog: prog, KernelArgs: "stats", Timeout: 3 * time.Minute}
				b := s.Boot(spec, fmt.Sprintf("hello cores=%d run %d/%d", c, r, s.O.Runs))
				p := fmt.Sprintf("%s/c%d/", k, c)
				if !b.OK() {
					for _, f := range []string{"boot", "wall", "used", "rss", "peak"} {
						sm.failed(p+f, b.Why())
					}
					continue
				}
				sm.add(p+"wall", b.Wall.Seconds()*1000)
				if b.PeakKiB > 0 {
					sm.add(p+"peak", float64(b.PeakKiB))
				}
				for _, res := range b.Results {
					if v, ok := Num(res, "boot_ms"); ok {
						sm.add(p+"boot", v)
					}
					if v, ok := Num(res, "used_kib"); ok {
						sm.add(p+"used", v)
					}
					if v, ok := Num(res, "maxrss_kib"); ok {
						sm.add(p+"rss", v)
					} else if e := Str(res, "rusage_error"); e != "" {
						sm.failed(p+"rss", "getrusage: "+e)
					}
				}
			}
		}
	}
	return sm
}

// writeImageSizes writes the kernels' and hello's file and loaded sizes.
func writeImageSizes(body *strings.Builder, s *Session, prog, stripped *Prog, serr error) {
	body.WriteString("Kernel images (what QEMU's `-kernel` loads) and the hello program (bench/hello:\nprints a line and one result, then powers off):\n\n")
	gLoaded, _ := linuxkernel.LoadedSize(s.M.Gometal)
	gForm := "ELF"
	if f, err := elf.Open(s.M.Gometal); err == nil {
		f.Close()
	} else {
		gForm = "flat Image" // arm64: QEMU -kernel gets an Image, as Linux's
	}
	rows := [][]string{{"gometal kernel (" + gForm + ")", kib(fileSize(s.M.Gometal)), kib(int64(gLoaded))}}
	if s.LinuxK != nil {
		lLoaded, _ := linuxkernel.LoadedSize(s.LinuxK.Image)
		rows = append(rows, []string{"Linux " + s.LinuxK.Package + " (vmlinux, an uncompressed Image)", kib(fileSize(s.LinuxK.Image)), kib(int64(lLoaded))})
	}
	rows = append(rows, []string{"hello (Go, static)", kib(prog.Size), "—"})
	if serr == nil {
		rows = append(rows, []string{"hello, `-ldflags=-s -w`", kib(stripped.Size), "—"})
	}
	body.WriteString(table([]string{"image", "file size", "loaded (segments / image_size)"}, rows) + "\n")
}

// writeBootMemory writes hello's boot time and memory, medians.
func writeBootMemory(body *strings.Builder, s *Session, sm *samples, cores []int) {
	body.WriteString("Boot and memory, medians (`boot` is CLOCK_BOOTTIME when main starts: on gometal\ntime since QEMU reset the machine, on Linux time since the kernel started — the\nfirmware's share (OpenSBI on riscv64; arm64 virt has none) is the same for both and not in Linux's figure;\n`wall` is host time from starting QEMU to its exit; `used` is sysinfo's total\nminus free RAM at the end of main; `peak` is gometal's peak page frames in\nuse (`stats`); `maxrss` is getrusage's peak resident set):\n\n")
	header := []string{"kernel", "cores", "boot to main (ms)", "wall (ms)", "used (KiB)", "gometal peak (KiB)", "maxrss (KiB)"}
	var rows [][]string
	for _, k := range s.Kinds {
		for _, c := range cores {
			p := fmt.Sprintf("%s/c%d/", k, c)
			peak := sm.cell(p+"peak", "%.0f")
			if k == Linux {
				peak = "n/a"
			}
			rows = append(rows, []string{string(k), fmt.Sprint(c), sm.cell(p+"boot", "%.0f"), sm.cell(p+"wall", "%.0f"),
				sm.cell(p+"used", "%.0f"), peak, sm.cell(p+"rss", "%.0f")})
		}
	}
	body.WriteString(table(header, rows) + "\n")
}

func firstWord(s string) string {
	if i := strings.Index(s, " ("); i > 0 {
		return s[:i]
	}
	return s
}

// bisectMem finds the smallest -m (MiB, in steps of res) at which hello
// reports its result.
func bisectMem(s *Session, k Kind, prog *Prog, res int) string {
	hiMB := int(mustSize(s.O.Mem) >> 20)
	timeout := time.Minute
	if k == Linux {
		timeout = 90 * time.Second // booting takes 5-30 s on a loaded host
	}
	probe := func(mb int) *Boot {
		return s.Boot(Spec{Kind: k, Cores: 1, Mem: fmt.Sprintf("%dM", mb), Prog: prog, Timeout: timeout},
			fmt.Sprintf("hello -m %dM (bisection)", mb))
	}
	if b := probe(hiMB); !b.OK() {
		return fmt.Sprintf("not found: fails even at %dM: %s", hiMB, b.Why())
	}
	lo, hi := 0, hiMB // lo fails (or is untested 0), hi works
	var lastFail string
	for hi-lo > res {
		mid := (lo + hi) / 2
		mid -= mid % res
		if mid <= lo {
			mid = lo + res
		}
		if mid >= hi {
			break
		}
		b := probe(mid)
		if b.OK() {
			hi = mid
		} else {
			lo, lastFail = mid, b.Why()
		}
	}
	if lastFail == "" {
		return fmt.Sprintf("%d MiB", hi)
	}
	return fmt.Sprintf("%d MiB (at %d MiB: %s)", hi, lo, lastFail)
}

func mustSize(s string) uint64 {
	var n uint64
	var unit string
	fmt.Sscanf(s, "%d%s", &n, &unit)
	switch strings.ToUpper(unit) {
	case "G":
		return n << 30
	case "K":
		return n << 10
	}
	return n << 20
}

// ---- micro ----

func runMicro(s *Session) Section {
	prog, err := s.M.BuildGo("micro", "./bench/micro")
	if err != nil {
		return notMeasured("building bench/micro failed", err)
	}
	var args []string
	if s.O.Quick {
		args = []string{"-pingpong", "5000", "-threads", "100", "-syscalls", "50000", "-futex", "300", "-timer", "1000", "-gc", "50", "-munmap", "500"}
	}
	cores := min(2, s.MaxCores())
	m := measureMicro(s, prog, args, cores)
	sm := m.sm
	var body strings.Builder
	argText := "the defaults: 20000 round trips, 500 threads, 200000 getpid calls, 2000 futex wakes, 10000 timer samples, 200 forced GCs, 2000 munmaps"
	if len(args) > 0 {
		argText = "`" + strings.Join(args, " ") + "`"
	}
	fmt.Fprintf(&body, "bench/micro on %d cores (%s); medians over boots:\n\n", cores, argText)
	writeMicroTable(&body, s, sm)
	body.WriteString("The timer figure is cyclictest's: a thread locked to its OS thread sleeps 1 ms\nwith nanosleep(2) in a loop and records how late it wakes (guest clock).\nHistogram of all samples from all boots (10 µs buckets, log scale):\n\n")
	writeTimerHistogram(&body, s, m)
	if b := m.stats[Gometal]; b != nil {
		body.WriteString("gometal's per-hart accounting for the last micro boot:\n\n")
		body.WriteString(table([]string{"busy % per hart", "syscalls", "interrupts", "migrations", "steals", "IPIs"}, [][]string{hartSummary(b)}))
		if b.Top != "" {
			body.WriteString("\nMost frequent system calls in that boot: " + b.Top + ".\n")
		}
	}
	sec := Section{Body: body.String()}
	note := fmt.Sprintf("Timer lateness p99 (1 ms sleeps): gometal %s µs", sm.cell("gometal/timer/p99", "%.0f"))
	if len(s.Kinds) > 1 {
		note += fmt.Sprintf(", Linux %s µs", sm.cell("linux/timer/p99", "%.0f"))
		note += fmt.Sprintf("; getpid round trip gometal %s ns, Linux %s ns", sm.cell("gometal/syscall/v", "%.0f"), sm.cell("linux/syscall/v", "%.0f"))
	}
	sec.Notes = append(sec.Notes, note+".")
	return sec
}

// microRuns is what the micro boots measured: the figures by
// "kind/name/field", the timer histogram summed over boots per kernel
// (bucket µs wide), and gometal's last boot (its per-hart statistics).
type microRuns struct {
	sm     *samples
	hist   map[Kind][]float64
	bucket float64
	stats  map[Kind]*Boot
}

// microNames are the figures bench/micro reports.
var microNames = []string{"pingpong-same", "pingpong-threads", "thread-create", "syscall", "futex-wake", "timer", "gc-pause", "munmap"}

// measureMicro boots bench/micro -runs times on each kernel.
func measureMicro(s *Session, prog *Prog, args []string, cores int) *microRuns {
	m := &microRuns{sm: newSamples(), hist: map[Kind][]float64{}, bucket: 10.0, stats: map[Kind]*Boot{}}
	for r := 1; r <= s.O.Runs; r++ {
		for _, k := range s.Kinds {
			b := s.Boot(Spec{Kind: k, Cores: cores, Prog: prog, Args: args, KernelArgs: "stats", Timeout: bootTimeout(s)},
				fmt.Sprintf("cores=%d run %d/%d", cores, r, s.O.Runs))
			if !b.OK() {
				for _, n := range microNames {
					for _, f := range []string{"v", "p50", "p99", "max"} {
						m.sm.failed(fmt.Sprintf("%s/%s/%s", k, n, f), b.Why())
					}
				}
			}
			if k == Gometal && len(b.CPUs) > 0 {
				m.stats[k] = b
			}
			for _, res := range b.Results {
				m.add(k, res)
			}
		}
	}
	return m
}

// add takes one result line of a micro boot on kernel k.
func (m *microRuns) add(k Kind, res map[string]any) {
	p := fmt.Sprintf("%s/%s/", k, Str(res, "name"))
	for _, f := range []string{"ns", "us"} {
		if v, ok := Num(res, f); ok {
			m.sm.add(p+"v", v)
		}
	}
	for _, f := range []string{"p50", "p99", "max"} {
		if v, ok := Num(res, f+"_us"); ok {
			m.sm.add(p+f, v)
		}
	}
	h, ok := res["hist"].([]any)
	if !ok {
		return
	}
	if bu, ok := Num(res, "hist_bucket_us"); ok {
		m.bucket = bu
	}
	if m.hist[k] == nil {
		m.hist[k] = make([]float64, len(h))
	}
	for i, c := range h {
		if f, ok := c.(float64); ok && i < len(m.hist[k]) {
			m.hist[k][i] += f
		}
	}
}

// writeMicroTable writes micro's figures, with gometal/Linux ratios.
func writeMicroTable(body *strings.Builder, s *Session, sm *samples) {
	type row struct{ name, what, field, unit, format string }
	spec := []row{
		{"pingpong-same", "goroutine switch, channel ping-pong, GOMAXPROCS=1 (round trip)", "v", "ns", "%.0f"},
		{"pingpong-threads", "ping-pong between two goroutines locked to OS threads (round trip, futex hand-over)", "v", "ns", "%.0f"},
		{"thread-create", "thread creation + exit (a locked goroutine exits)", "v", "µs", "%.1f"},
		{"syscall", "getpid(2) round trip", "v", "ns", "%.0f"},
		{"futex-wake", "futex wake → waiter running, other thread, p50", "p50", "µs", "%.1f"},
		{"futex-wake", "futex wake latency p99", "p99", "µs", "%.1f"},
		{"futex-wake", "futex wake latency max", "max", "µs", "%.0f"},
		{"timer", "1 ms nanosleep lateness p50", "p50", "µs", "%.1f"},
		{"timer", "1 ms nanosleep lateness p99", "p99", "µs", "%.1f"},
		{"timer", "1 ms nanosleep lateness max", "max", "µs", "%.0f"},
		{"gc-pause", "GC stop-the-world pause p50 (spinners on every hart; runtime/metrics)", "p50", "µs", "%.0f"},
		{"gc-pause", "GC stop-the-world pause p99", "p99", "µs", "%.0f"},
		{"gc-pause", "GC stop-the-world pause max", "max", "µs", "%.0f"},
		{"munmap", "mmap, touch, munmap one page, spinners on the other harts (TLB shootdown)", "v", "µs", "%.1f"},
	}
	header := []string{"figure", "unit"}
	for _, k := range s.Kinds {
		header = append(header, string(k))
	}
	if len(s.Kinds) > 1 {
		header = append(header, "gometal/Linux")
	}
	var rows [][]string
	for _, r := range spec {
		line := []string{r.what, r.unit}
		for _, k := range s.Kinds {
			line = append(line, sm.cell(fmt.Sprintf("%s/%s/%s", k, r.name, r.field), r.format))
		}
		if len(s.Kinds) > 1 {
			line = append(line, sm.ratio(fmt.Sprintf("gometal/%s/%s", r.name, r.field), fmt.Sprintf("linux/%s/%s", r.name, r.field)))
		}
		rows = append(rows, line)
	}
	body.WriteString(table(header, rows) + "\n")
}

// writeTimerHistogram plots the timer lateness of both kernels, up to the
// bucket holding the larger p99 ×3 (the last bucket holds every later one).
func writeTimerHistogram(body *strings.Builder, s *Session, m *microRuns) {
	top := 0.0
	for _, k := range s.Kinds {
		if v, ok := m.sm.med(fmt.Sprintf("%s/timer/p99", k)); ok {
			top = math.Max(top, v)
		}
	}
	bucket := m.bucket
	nb := int(math.Min(math.Max(top*3/bucket, 20), 500))
	ch := &plot.Chart{Title: "1 ms sleep lateness (cyclictest-style), all samples", XLabel: "lateness (us)", YLabel: "samples", LogY: true, Bars: true}
	for ki, k := range s.Kinds {
		h := m.hist[k]
		if h == nil {
			continue
		}
		ser := plot.Series{Name: string(k), Color: plot.Palette[ki]}
		for i := 0; i <= nb && i < len(h); i++ {
			v := h[i]
			if i == nb { // everything later
				for _, x := range h[i+1:] {
					v += x
				}
			}
			ser.X = append(ser.X, float64(i)*bucket)
			ser.Y = append(ser.Y, v)
		}
		ch.Series = append(ch.Series, ser)
	}
	one := 1.0
	ch.YMin = &one
	if len(ch.Series) > 0 {
		if err := ch.Save(filepath.Join(s.OutDir, "bench-timer-latency.png")); err != nil {
			fmt.Fprintf(body, "(plot failed: %v)\n\n", err)
		} else {
			fmt.Fprintf(body, "![timer lateness histogram](bench-timer-latency.png)\n\n(The last bucket, at %.0f µs, holds every later sample.)\n\n", float64(nb)*bucket)
		}
	}
}
