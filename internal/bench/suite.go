package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gometal.dev/gometal/internal/kstats"
)

func init() {
	register(&benchmark{name: "arith", title: "simple_arithmetic (MultiGo §5.1): 1 vs N harts",
		plan: func(s *Session) int { return s.O.Runs * 2 * len(s.Kinds) }, run: runArith})
	register(&benchmark{name: "matmul", title: "Matrix multiplication: Go vs C",
		plan: func(s *Session) int { return s.O.Runs * 2 * len(s.Kinds) }, run: runMatmul})
	register(&benchmark{name: "gothreads", title: "Goroutines vs OS threads (CPU-bound tasks)",
		plan: func(s *Session) int { return s.O.Runs * len(s.Kinds) }, run: runGothreads})
	register(&benchmark{name: "placement", title: "Placement policies (InfOS §5.2.1 balancing)",
		plan: func(s *Session) int { return s.O.Runs * (len(kstats.SchedPolicies) + len(s.Kinds) - 1) }, run: runPlacement})
}

func bootTimeout(s *Session) time.Duration {
	if s.O.Quick {
		return 5 * time.Minute
	}
	return 15 * time.Minute
}

func notMeasured(what string, err error) Section {
	return Section{Body: fmt.Sprintf("Not measured: %s: %v", what, err)}
}

// ---- arith ----

var arithGs = []int{1, 2, 4, 8, 16}

func runArith(s *Session) Section {
	prog, err := s.M.BuildGo("arith", "./bench/arith")
	if err != nil {
		return notMeasured("building bench/arith failed", err)
	}
	n := "200000000"
	if s.O.Quick {
		n = "20000000"
	}
	args := []string{"-g", "1,2,4,8,16", "-n", n}
	N := s.MaxCores()
	cores := []int{1, N}
	sm := newSamples()
	key := func(k Kind, g, c int) string { return fmt.Sprintf("%s/g%d/c%d", k, g, c) }
	for r := 1; r <= s.O.Runs; r++ {
		for _, c := range cores {
			for _, k := range s.Kinds {
				b := s.Boot(Spec{Kind: k, Cores: c, Prog: prog, Args: args, Timeout: bootTimeout(s)},
					fmt.Sprintf("cores=%d run %d/%d", c, r, s.O.Runs))
				for _, g := range arithGs {
					if !b.OK() {
						sm.failed(key(k, g, c), b.Why())
					}
				}
				for _, res := range b.Results {
					g, _ := Num(res, "g")
					ms, _ := Num(res, "ms")
					sm.add(key(k, int(g), c), ms)
				}
			}
		}
	}
	var body strings.Builder
	fmt.Fprintf(&body, "G goroutines each perform %s additions (bench/arith, `%s`); time for all of\nthem (ms), on 1 hart and on %d harts, and the speedup N harts give.\n\n", n, strings.Join(args, " "), N)
	header := []string{"G"}
	for _, k := range s.Kinds {
		header = append(header, fmt.Sprintf("%s 1 core", k), fmt.Sprintf("%s %d cores", k, N), fmt.Sprintf("%s speedup", k))
	}
	if len(s.Kinds) > 1 {
		header = append(header, "gometal/Linux (1 core)", fmt.Sprintf("gometal/Linux (%d cores)", N))
	}
	var rows [][]string
	for _, g := range arithGs {
		row := []string{fmt.Sprint(g)}
		for _, k := range s.Kinds {
			row = append(row, sm.cell(key(k, g, 1), "%.0f"), sm.cell(key(k, g, N), "%.0f"), sm.ratio(key(k, g, 1), key(k, g, N))+"×")
		}
		if len(s.Kinds) > 1 {
			row = append(row, sm.ratio(key(Gometal, g, 1), key(Linux, g, 1)), sm.ratio(key(Gometal, g, N), key(Linux, g, N)))
		}
		rows = append(rows, row)
	}
	body.WriteString(table(header, rows))
	sec := Section{Body: body.String()}
	gl := arithGs[len(arithGs)-1]
	note := fmt.Sprintf("simple_arithmetic, G=%d, speedup of %d harts over 1: gometal %s×", gl, N, sm.ratio(key(Gometal, gl, 1), key(Gometal, gl, N)))
	if len(s.Kinds) > 1 {
		note += fmt.Sprintf(", Linux %s×", sm.ratio(key(Linux, gl, 1), key(Linux, gl, N)))
	}
	sec.Notes = append(sec.Notes, note+".")
	return sec
}

// ---- matmul ----

func runMatmul(s *Session) Section {
	goProg, err := s.M.BuildGo("matmul", "./bench/matmul")
	if err != nil {
		return notMeasured("building bench/matmul failed", err)
	}
	cProg, cErr := s.M.BuildC("matmul-c", filepath.Join("bench", "matmul", "csrc", "matmul.c"))
	n := "512"
	if s.O.Quick {
		n = "192"
	}
	args := []string{"-n", n}
	sm := newSamples()
	key := func(k Kind, lang string) string { return string(k) + "/" + lang }
	var cFailOutput string
	for r := 1; r <= s.O.Runs; r++ {
		for _, p := range []*Prog{goProg, cProg} {
			lang := "go"
			if p == cProg || p == nil {
				lang = "c"
			}
			for _, k := range s.Kinds {
				if p == nil {
					sm.failed(key(k, lang), "no C compiler: "+cErr.Error())
					continue
				}
				b := s.Boot(Spec{Kind: k, Cores: 1, Prog: p, Args: args, Timeout: bootTimeout(s)},
					fmt.Sprintf("%s run %d/%d", lang, r, s.O.Runs))
				if !b.OK() {
					sm.failed(key(k, lang), b.Why())
					if lang == "c" && k == Gometal {
						cFailOutput = b.Output
					}
					continue
				}
				for _, res := range b.Results {
					ms, _ := Num(res, "ms")
					sm.add(key(k, lang), ms)
				}
			}
		}
	}
	var body strings.Builder
	fmt.Fprintf(&body, "An N×N float64 matrix product with the same i-k-j triple loop in Go\n(bench/matmul) and C (bench/matmul/csrc/matmul.c, `%s -O2 -static`), N = %s,\none hart; time in ms.\n\n", s.M.model().Arch.CrossCC, n)
	var rows [][]string
	for _, k := range s.Kinds {
		rows = append(rows, []string{string(k), sm.cell(key(k, "go"), "%.0f"), sm.cell(key(k, "c"), "%.0f"), sm.ratioBoth(key(k, "go"), key(k, "c"))})
	}
	body.WriteString(table([]string{"kernel", "Go ms", "C ms", "Go/C"}, rows) + "\n")
	if len(s.Kinds) > 1 {
		fmt.Fprintf(&body, "gometal/Linux: Go %s, C %s.\n\n", sm.ratioBoth(key(Gometal, "go"), key(Linux, "go")), sm.ratioBoth(key(Gometal, "c"), key(Linux, "c")))
	}
	body.WriteString("Binary sizes (static, as booted):\n\n")
	sizes := [][]string{{"Go (bench/matmul)", kib(goProg.Size)}}
	if cProg != nil {
		sizes = append(sizes, []string{"C (glibc, static, -O2)", kib(cProg.Size)})
	} else {
		sizes = append(sizes, []string{"C", "not built: " + cErr.Error()})
	}
	body.WriteString(table([]string{"binary", "size"}, sizes) + "\n")
	if cFailOutput != "" {
		body.WriteString("The C binary failed on gometal; its console output:\n\n```\n" + tail(cFailOutput, 20) + "\n```\n")
	}
	sec := Section{Body: body.String()}
	note := fmt.Sprintf("Matrix multiplication (N=%s) Go/C time: %s on gometal", n, sm.ratioBoth(key(Gometal, "go"), key(Gometal, "c")))
	if len(s.Kinds) > 1 {
		note += fmt.Sprintf(", %s on Linux", sm.ratioBoth(key(Linux, "go"), key(Linux, "c")))
	}
	sec.Notes = append(sec.Notes, note+".")
	return sec
}

func tail(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// ---- gothreads ----

var threadModes = []string{"goroutines", "goroutine-pool", "thread-per-task", "thread-pool"}

func runGothreads(s *Session) Section {
	prog, err := s.M.BuildGo("gothreads", "./bench/gothreads")
	if err != nil {
		return notMeasured("building bench/gothreads failed", err)
	}
	var args []string
	if s.O.Quick {
		args = []string{"-small", "500x20000", "-large", "16x5000000"}
	}
	N := s.MaxCores()
	sm := newSamples()
	key := func(k Kind, size, mode string) string { return fmt.Sprintf("%s/%s/%s", k, size, mode) }
	desc := map[string]string{}
	for r := 1; r <= s.O.Runs; r++ {
		for _, k := range s.Kinds {
			b := s.Boot(Spec{Kind: k, Cores: N, Prog: prog, Args: args, Timeout: bootTimeout(s)},
				fmt.Sprintf("cores=%d run %d/%d", N, r, s.O.Runs))
			if !b.OK() {
				for _, size := range []string{"small", "large"} {
					for _, m := range threadModes {
						sm.failed(key(k, size, m), b.Why())
					}
				}
			}
			for _, res := range b.Results {
				ms, _ := Num(res, "ms")
				size := Str(res, "size")
				sm.add(key(k, size, Str(res, "mode")), ms)
				t, _ := Num(res, "tasks")
				it, _ := Num(res, "iters")
				desc[size] = fmt.Sprintf("%.0f tasks × %.0f iterations", t, it)
			}
		}
	}
	var body strings.Builder
	fmt.Fprintf(&body, "The same CPU-bound tasks (an xorshift loop) run as plain goroutines, a pool of\nNumCPU goroutines, one goroutine locked to a fresh OS thread per task\n(`runtime.LockOSThread`, never unlocked, so the thread is created and destroyed\nwith the task), and a pool of NumCPU locked threads (bench/gothreads), on %d\ncores; time in ms.\n\n", N)
	header := []string{"tasks", "mode"}
	for _, k := range s.Kinds {
		header = append(header, string(k)+" ms", string(k)+" vs goroutines")
	}
	if len(s.Kinds) > 1 {
		header = append(header, "gometal/Linux")
	}
	var rows [][]string
	for _, size := range []string{"small", "large"} {
		for _, m := range threadModes {
			row := []string{desc[size], m}
			for _, k := range s.Kinds {
				row = append(row, sm.cell(key(k, size, m), "%.0f"), sm.ratio(key(k, size, m), key(k, size, "goroutines"))+"×")
			}
			if len(s.Kinds) > 1 {
				row = append(row, sm.ratio(key(Gometal, size, m), key(Linux, size, m)))
			}
			rows = append(rows, row)
		}
	}
	body.WriteString(table(header, rows))
	sec := Section{Body: body.String()}
	note := fmt.Sprintf("Goroutines vs threads (small tasks): a thread per task costs %s× the time of a goroutine per task on gometal", sm.ratio(key(Gometal, "small", "thread-per-task"), key(Gometal, "small", "goroutines")))
	if len(s.Kinds) > 1 {
		note += fmt.Sprintf(", %s× on Linux", sm.ratio(key(Linux, "small", "thread-per-task"), key(Linux, "small", "goroutines")))
	}
	sec.Notes = append(sec.Notes, note+".")
	return sec
}

// ---- placement ----

func runPlacement(s *Session) Section {
	prog, err := s.M.BuildGo("placement", "./bench/placement")
	if err != nil {
		return notMeasured("building bench/placement failed", err)
	}
	secs := "6"
	if s.O.Quick {
		secs = "2"
	}
	args := []string{"-seconds", secs}
	N := s.MaxCores()
	cfgs := policyRows(s)
	sm := newSamples()
	for r := 1; r <= s.O.Runs; r++ {
		for _, c := range cfgs {
			b := s.Boot(c.spec(prog, N, args, s), fmt.Sprintf("%s cores=%d run %d/%d", c.policy, N, r, s.O.Runs))
			if !b.OK() {
				sm.failed(c.policy+"/per_s", b.Why())
				continue
			}
			for _, res := range b.Results {
				v, _ := Num(res, "per_s")
				sm.add(c.policy+"/per_s", v)
				lo, _ := Num(res, "min_thread")
				hi, _ := Num(res, "max_thread")
				if hi > 0 {
					sm.add(c.policy+"/fair", lo/hi)
				}
				th, _ := Num(res, "threads")
				sm.add(c.policy+"/threads", th)
			}
			var mig, steal, ipi, busy int
			for _, h := range b.CPUs {
				mig += h.Migrations
				steal += h.Steals
				ipi += h.IPIsSent
				busy += h.Busy
			}
			if len(b.CPUs) > 0 {
				sm.add(c.policy+"/mig", float64(mig))
				sm.add(c.policy+"/steal", float64(steal))
				sm.add(c.policy+"/ipi", float64(ipi))
				sm.add(c.policy+"/busy", float64(busy)/float64(len(b.CPUs)))
			}
		}
	}
	var body strings.Builder
	th, _ := sm.med("affinity/threads")
	fmt.Fprintf(&body, "%.0f threads (2 per hart, goroutines locked to OS threads, GOMAXPROCS = threads)\neach hash their own 128 KiB slice of an array with FNV-1a, then sleep a random\n0–2 ms in nanosleep(2), for %s s, on %d cores (bench/placement). Throughput is\nslices hashed per second by all threads; fairness is the slowest thread's count\nover the fastest's. Migrations, steals, IPIs and busy %% come from gometal's\nper-hart statistics (sums over harts; busy averaged).\n\n", th, secs, N)
	var rows [][]string
	for _, c := range cfgs {
		p := c.policy
		row := []string{p, sm.cell(p+"/per_s", "%.0f"), sm.cell(p+"/fair", "%.2f")}
		if c.kind == Gometal {
			row = append(row, sm.cell(p+"/mig", "%.0f"), sm.cell(p+"/steal", "%.0f"), sm.cell(p+"/ipi", "%.0f"), sm.cell(p+"/busy", "%.0f%%"))
		} else {
			row = append(row, "n/a", "n/a", "n/a", "n/a")
		}
		rows = append(rows, row)
	}
	body.WriteString(table([]string{"policy", "slices/s", "fairness", "migrations", "steals", "IPIs", "busy"}, rows))
	best, bestV := "", 0.0
	for _, p := range kstats.SchedPolicies {
		if v, ok := sm.med(p + "/per_s"); ok && v > bestV {
			best, bestV = p, v
		}
	}
	sec := Section{Body: body.String()}
	if best != "" {
		note := fmt.Sprintf("Placement: %s gives the best throughput on gometal (%.0f slices/s)", best, bestV)
		if v, ok := sm.med(linuxRow + "/per_s"); ok {
			note += fmt.Sprintf("; Linux %.0f", v)
		}
		sec.Notes = append(sec.Notes, note+".")
	}
	return sec
}

// ---- helpers shared by footprint and micro ----

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}
