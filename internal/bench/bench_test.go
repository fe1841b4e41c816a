package bench

import (
	"path/filepath"
	"strings"
	"testing"

	"gometal.dev/gometal/internal/bench/plot"
)

func TestSamples(t *testing.T) {
	s := newSamples()
	s.add("a", 10)
	s.add("a", 30)
	s.add("a", 20)
	s.add("b", 10)
	s.add("b", 5)
	s.add("b", 10)
	s.failed("c", "timed out")
	if got := s.cell("a", "%.0f"); got != "20" {
		t.Errorf("cell = %q", got)
	}
	if got := s.cell("c", "%.0f"); got != "failed: timed out" {
		t.Errorf("failed cell = %q", got)
	}
	if got := s.ratioBoth("a", "b"); got != "2.00 (2.00)" {
		t.Errorf("ratioBoth = %q", got)
	}
	if got := s.ratio("a", "c"); got != "—" {
		t.Errorf("ratio with a missing side = %q", got)
	}
}

func TestParseBootOutput(t *testing.T) {
	out := `Hello
BENCH {"bench":"hello","boot_ms":12.5}
gometal: per-hart statistics (placement policy affinity):
  hart  state    busy_ms  idle_ms  busy%  threads_run  migrations  steals  ipis_sent  ipis_recv  syscalls  interrupts
     0  online        45      105    29%           69           3       3          9          6       219          88
     1  online       153       68    69%           14           3       3          6          8       339          48
gometal: most frequent system calls: rt_sigaction 114, mmap 87
gometal: memory: peak 2548 KiB of 224864 KiB in page frames, kernel heap 57 KiB in use
gometal-stats: {"policy":"affinity","cpus":[{"cpu":0,"state":"online","busy_ms":45,"idle_ms":105,"busy_pct":29,"threads_run":69,"migrations":3,"steals":3,"ipis_sent":9,"ipis_recv":6,"syscalls":219,"interrupts":88},{"cpu":1,"state":"online","busy_ms":153,"idle_ms":68,"busy_pct":69,"threads_run":14,"migrations":3,"steals":3,"ipis_sent":6,"ipis_recv":8,"syscalls":339,"interrupts":48}],"syscalls":[{"name":"rt_sigaction","count":114},{"name":"mmap","count":87}],"wake_delay":{"bounds_us":[16,64],"counts":[1,0,0],"max_us":10},"memory":{"peak_kib":2548,"total_kib":224864,"heap_kib":57}}
[tid 1] clock_gettime(0x1, 0x3fffffdd70, 0x0, 0x1) = Ok(0)
[tid 2] clock_gettime(0x1, 0x3fffffdd70, 0x0, 0x1) = Ok(0)
[tid 1] futex(0x1, 0x2) = Ok(0)
`
	b := &Boot{}
	parseOutput(b, out)
	if len(b.Results) != 1 || b.Results[0]["boot_ms"] != 12.5 {
		t.Errorf("results = %v", b.Results)
	}
	if len(b.CPUs) != 2 || b.CPUs[1].Busy != 69 || b.CPUs[1].Syscalls != 339 || b.CPUs[0].Interrupts != 88 {
		t.Errorf("harts = %+v", b.CPUs)
	}
	if b.PeakKiB != 2548 || b.Policy != "affinity" || b.Top != "rt_sigaction 114, mmap 87" {
		t.Errorf("peak %d policy %q", b.PeakKiB, b.Policy)
	}
	c, total := syscallProfile(out)
	if total != 3 || c[0].name != "clock_gettime" || c[0].n != 2 {
		t.Errorf("profile = %v, %d", c, total)
	}
}

func TestLinuxConfigSameMachine(t *testing.T) {
	m := &Machine{QEMU: "qemu", Gometal: "gometal.elf", Linux: "vmlinux", Mem: "256M"}
	p := &Prog{Initrd: "init.cpio"}
	g := m.Config(Spec{Kind: Gometal, Cores: 2, Prog: p, Args: []string{"-n", "5"}, KernelArgs: "stats"})
	l := m.Config(Spec{Kind: Linux, Cores: 2, Prog: p, Args: []string{"-n", "5"}, KernelArgs: "stats"})
	if g.SMP != l.SMP || g.Memory != l.Memory || g.Initrd != l.Initrd || g.Machine != l.Machine {
		t.Errorf("machines differ: %+v vs %+v", g, l)
	}
	if g.Append != "stats -- -n 5" {
		t.Errorf("gometal cmdline %q", g.Append)
	}
	if l.Append != "console=ttyS0 rdinit=/init panic=-1 quiet -- -n 5" || l.Kernel != "vmlinux" {
		t.Errorf("linux cmdline %q kernel %q", l.Append, l.Kernel)
	}
	// gometal always has its devices; Linux gets the ports when asked.
	if !g.Entropy || !g.StdioPorts || l.StdioPorts {
		t.Errorf("devices: gometal %v/%v, linux ports %v", g.Entropy, g.StdioPorts, l.StdioPorts)
	}
	if lp := m.Config(Spec{Kind: Linux, Prog: p, Ports: true}); !lp.StdioPorts {
		t.Error("Linux spec with Ports has no ports")
	}
}

func TestTableAndPlot(t *testing.T) {
	tb := table([]string{"a", "b"}, [][]string{{"1", "2"}})
	if !strings.HasPrefix(tb, "| a | b |\n|---|--:|\n| 1 | 2 |") {
		t.Errorf("table = %q", tb)
	}
	c := &plot.Chart{Title: "t", Series: []plot.Series{{Name: "s", X: []float64{1, 2, 4}, Y: []float64{10, 5, 3}}}}
	if err := c.Save(filepath.Join(t.TempDir(), "p.png")); err != nil {
		t.Fatal(err)
	}
	h := &plot.Chart{LogY: true, Bars: true, Series: []plot.Series{{Name: "h", X: []float64{0, 10, 20}, Y: []float64{0, 100, 3}}}}
	if img := h.Draw(); img.Bounds().Dx() != 800 {
		t.Errorf("size %v", img.Bounds())
	}
}

func TestBenchmarksOrder(t *testing.T) {
	got := strings.Join(Benchmarks(), ",")
	if got != "mandelbrot,arith,matmul,footprint,gothreads,micro,placement,balance,wakelat,stdio,files,devices,blockdev,net" {
		t.Errorf("Benchmarks() = %s", got)
	}
}
