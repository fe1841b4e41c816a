// Package kstats reads the statistics the gometal kernel prints at exit with
// the `stats` kernel argument (kernel/src/stats.rs). The kernel prints them
// twice: as tables for people, and as one `gometal-stats: {json}` line for
// programs; this package reads the JSON line, so no table layout is parsed
// anywhere on the host. It also holds the checks every harness makes of
// them (the policy the kernel used, every hart online) and the kernel's
// placement-policy names.
package kstats

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Prefix starts the kernel's machine-readable statistics line.
const Prefix = "gometal-stats: "

// SchedPolicies are the kernel's thread placement policies (its `sched=`
// argument, gometal run -sched), as kernel/core/src/sched/placement.rs names them;
// TestPoliciesMatchKernel keeps the two in step.
var SchedPolicies = []string{"round-robin", "random", "least-loaded", "affinity", "adaptive"}

// CPU is one CPU's accounting.
type CPU struct {
	CPU        int    `json:"cpu"`
	State      string `json:"state"` // online, parked, error, booting
	BusyMS     int    `json:"busy_ms"`
	IdleMS     int    `json:"idle_ms"`
	Busy       int    `json:"busy_pct"` // busy share of busy+idle, in %
	ThreadsRun int    `json:"threads_run"`
	Migrations int    `json:"migrations"`
	Steals     int    `json:"steals"`
	IPIsSent   int    `json:"ipis_sent"`
	IPIsRecv   int    `json:"ipis_recv"`
	Syscalls   int    `json:"syscalls"`
	Interrupts int    `json:"interrupts"`
}

// Syscall is how often one system call was made.
type Syscall struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// WakeDelay is the histogram of wake-to-run delays: Counts[i] delays under
// BoundsUS[i] µs (and at least the bound before); the last count has no
// upper bound.
type WakeDelay struct {
	BoundsUS []int `json:"bounds_us"`
	Counts   []int `json:"counts"`
	MaxUS    int   `json:"max_us"`
}

// Memory is the page frames and kernel heap in use, and the kernel's
// per-category use against its limits (docs/syscalls.md).
type Memory struct {
	PeakKiB      int `json:"peak_kib"`
	TotalKiB     int `json:"total_kib"`
	HeapKiB      int `json:"heap_kib"`
	HeapTotalKiB int `json:"heap_total_kib"`
	PipePeakKiB  int `json:"pipe_peak_kib"`
	WatchesPeak  int `json:"watches_peak"`
	WatchesMax   int `json:"watches_max"`
	ThreadsPeak  int `json:"threads_peak"`
	ThreadsMax   int `json:"threads_max"`
}

// Handoff counts the wakeups handed to the waker's CPU because the CPU
// chosen for the thread napped (kernel/src/sched/place.rs): which CPU ran
// the thread, how often the waker's CPU preempted its own thread for it
// after the grace period, and the wake-to-run delay of those wakeups.
type Handoff struct {
	ByWakerCPU int       `json:"by_waker_cpu"`
	ByOtherCPU int       `json:"by_other_cpu"`
	Preempts   int       `json:"preempts"`
	Delay      WakeDelay `json:"delay"`
}

// Stats is one boot's statistics.
type Stats struct {
	Policy    string    `json:"policy"`
	CPUs      []CPU     `json:"cpus"`
	Syscalls  []Syscall `json:"syscalls"` // the most frequent, most first
	WakeDelay WakeDelay `json:"wake_delay"`
	// The wakeups made while some CPU idled, and the stages of those that
	// went through a napping CPU: IPI sent → that CPU awake → the thread
	// running on it.
	WakeDelayIdleCPU WakeDelay `json:"wake_delay_idle_cpu"`
	IPIToAwake       WakeDelay `json:"ipi_to_awake"`
	AwakeToRun       WakeDelay `json:"awake_to_run"`
	Handoff          Handoff   `json:"handoff"`
	Memory           Memory    `json:"memory"`
}

// ErrNone means the console has no statistics line (the kernel was not
// given `stats`, or the boot did not get that far).
var ErrNone = errors.New("no " + strings.TrimSpace(Prefix) + " line")

// Parse finds the statistics line in a boot's console output.
func Parse(console string) (*Stats, error) {
	for _, line := range strings.Split(console, "\n") {
		i := strings.Index(line, Prefix)
		if i < 0 {
			continue
		}
		var s Stats
		if err := json.Unmarshal([]byte(strings.TrimSpace(line[i+len(Prefix):])), &s); err != nil {
			return nil, fmt.Errorf("the kernel's statistics line: %v", err)
		}
		return &s, nil
	}
	return nil, ErrNone
}

// TopSyscalls is the most frequent system calls as the kernel's table line
// shows them: "futex 120, mmap 87".
func (s *Stats) TopSyscalls() string {
	var parts []string
	for _, c := range s.Syscalls {
		parts = append(parts, fmt.Sprintf("%s %d", c.Name, c.Count))
	}
	return strings.Join(parts, ", ")
}

// Check reports what is wrong with a boot's statistics, given the policy
// it was booted with ("" for any) and the harts it was given: every hart
// listed once and online. A hart that fails to start is otherwise silent.
func (s *Stats) Check(policy string, cores int) []string {
	var problems []string
	if policy != "" && s.Policy != policy {
		problems = append(problems, fmt.Sprintf("stats name policy %q, want %q", s.Policy, policy))
	}
	seen := map[int]bool{}
	for _, h := range s.CPUs {
		if seen[h.CPU] {
			problems = append(problems, fmt.Sprintf("stats list CPU %d twice", h.CPU))
		}
		seen[h.CPU] = true
		if h.State != "online" {
			problems = append(problems, fmt.Sprintf("stats: CPU %d is %s, not online", h.CPU, h.State))
		}
	}
	if len(seen) != cores {
		problems = append(problems, fmt.Sprintf("stats list %d CPUs, want %d", len(seen), cores))
	}
	return problems
}
