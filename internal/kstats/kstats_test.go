package kstats

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// A console as the kernel prints it (kernel/src/stats.rs), tables and all.
const console = `PASS hello
gometal: per-hart statistics (placement policy affinity):
  hart  state    busy_ms  idle_ms  busy%  threads_run  migrations  steals  ipis_sent  ipis_recv  syscalls  interrupts
     1  online       243        3    98%           27           4       3         10          6       345          66
     0  online        81      186    30%           57           3       3          6          9        83          62
gometal: most frequent system calls: rt_sigaction 114, mmap 87
gometal: memory: peak 2076 KiB of 225148 KiB in page frames, kernel heap 60 KiB in use
gometal-stats: {"policy":"affinity","cpus":[{"cpu":1,"state":"online","busy_ms":243,"idle_ms":3,"busy_pct":98,"threads_run":27,"migrations":4,"steals":3,"ipis_sent":10,"ipis_recv":6,"syscalls":345,"interrupts":66},{"cpu":0,"state":"online","busy_ms":81,"idle_ms":186,"busy_pct":30,"threads_run":57,"migrations":3,"steals":3,"ipis_sent":6,"ipis_recv":9,"syscalls":83,"interrupts":62}],"syscalls":[{"name":"rt_sigaction","count":114},{"name":"mmap","count":87}],"wake_delay":{"bounds_us":[16,64,256,1024,4096,16384],"counts":[42,11,8,9,2,3,0],"max_us":7010},"memory":{"peak_kib":2076,"total_kib":225148,"heap_kib":60,"heap_total_kib":28144,"pipe_peak_kib":64,"watches_peak":2,"watches_max":28144,"threads_peak":6,"threads_max":1758}}
`

func TestParse(t *testing.T) {
	s, err := Parse(console)
	if err != nil {
		t.Fatal(err)
	}
	if s.Policy != "affinity" || len(s.CPUs) != 2 || s.CPUs[0].CPU != 1 || s.CPUs[0].Busy != 98 ||
		s.CPUs[1].Syscalls != 83 || s.CPUs[1].Interrupts != 62 || s.CPUs[0].IPIsSent != 10 {
		t.Errorf("parsed %+v", s)
	}
	if s.Memory.PeakKiB != 2076 || s.Memory.ThreadsMax != 1758 || s.Memory.PipePeakKiB != 64 || s.WakeDelay.MaxUS != 7010 || len(s.WakeDelay.Counts) != 7 {
		t.Errorf("memory %+v, wake delay %+v", s.Memory, s.WakeDelay)
	}
	if got := s.TopSyscalls(); got != "rt_sigaction 114, mmap 87" {
		t.Errorf("TopSyscalls = %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	if _, err := Parse("PASS hello\n"); !errors.Is(err, ErrNone) {
		t.Errorf("no line: err = %v", err)
	}
	if _, err := Parse(Prefix + "{\"policy\": \n"); err == nil || errors.Is(err, ErrNone) {
		t.Errorf("a cut-off line: err = %v", err)
	}
}

func TestCheck(t *testing.T) {
	s, _ := Parse(console)
	if p := s.Check("affinity", 2); len(p) != 0 {
		t.Errorf("a good boot: %v", p)
	}
	if p := s.Check("random", 2); len(p) != 1 {
		t.Errorf("the wrong policy: %v", p)
	}
	if p := s.Check("", 4); len(p) != 1 || !strings.Contains(p[0], "2 CPUs, want 4") {
		t.Errorf("a hart missing: %v", p)
	}
	s.CPUs[1].State = "error"
	s.CPUs = append(s.CPUs, s.CPUs[0])
	if p := s.Check("affinity", 2); len(p) != 2 {
		t.Errorf("a hart twice and one not online: %v", p)
	}
}

func TestMedian(t *testing.T) {
	v := []float64{3, 1, 2}
	if Median(v) != 2 || v[0] != 3 {
		t.Errorf("odd: %v (input %v)", Median(v), v)
	}
	if Median([]float64{4, 1, 3, 2}) != 2.5 || Median(nil) != 0 {
		t.Error("even or empty")
	}
}

// TestPoliciesMatchKernel keeps SchedPolicies and the kernel's policy
// names (kernel/core/src/sched/placement.rs, Policy::name) in step.
func TestPoliciesMatchKernel(t *testing.T) {
	src, err := os.ReadFile("../../kernel/core/src/sched/placement.rs")
	if err != nil {
		t.Fatal(err)
	}
	var kernel []string
	for _, line := range strings.Split(string(src), "\n") {
		if _, name, ok := strings.Cut(line, "=> \""); ok && strings.Contains(line, "Policy::") {
			kernel = append(kernel, strings.TrimSuffix(strings.TrimSpace(name), "\","))
		}
	}
	if strings.Join(kernel, " ") != strings.Join(SchedPolicies, " ") {
		t.Errorf("placement.rs names %q, SchedPolicies %q", kernel, SchedPolicies)
	}
}
