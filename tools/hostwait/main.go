// Command hostwait runs a command that starts one QEMU (gometal run, say)
// and reports, for each of that QEMU's threads — one per virtual CPU, plus
// its main loop, which delivers timer interrupts — how long it ran on the
// host and how long it was runnable but waited for a host CPU, from Linux's
// /proc/PID/task/TID/schedstat. On a shared host the second figure is the
// stage of a guest's wakeup that no guest kernel can shorten: a virtual CPU
// that has been sent an IPI, or has work, still waits for the host to run
// it (docs/scheduling.md, "Waking while a CPU naps").
//
//	go run ./tools/hostwait [-every 100ms] -- COMMAND [ARGS...]
//
// The command's output passes through; the report goes to stderr at the
// end. Linux hosts only.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// usage is one thread's schedstat: ns on a CPU, ns waiting on a run queue.
type usage struct {
	name          string
	ranNS, waitNS int64
}

func main() {
	every := flag.Duration("every", 100*time.Millisecond, "how often to sample the QEMU's threads")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: hostwait [-every 100ms] -- COMMAND [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "hostwait:", err)
		os.Exit(2)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	start := time.Now()
	last := map[string]usage{}
	var qemu int
	var err error
	for running := true; running; {
		select {
		case err = <-done:
			running = false
		case <-time.After(*every):
			if qemu == 0 {
				qemu = findQEMU(cmd.Process.Pid)
			}
			if qemu != 0 {
				for tid, u := range threads(qemu) {
					last[tid] = u // the last sample before QEMU exits
				}
			}
		}
	}
	report(last, time.Since(start))
	if exit, ok := err.(*exec.ExitError); ok {
		os.Exit(exit.ExitCode())
	}
}

// findQEMU returns the first qemu-system-* process below pid (0: none
// yet). Children are listed per thread, and Go starts them from any.
func findQEMU(pid int) int {
	lists, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var kids []string
	for _, l := range lists {
		data, _ := os.ReadFile(l)
		kids = append(kids, strings.Fields(string(data))...)
	}
	for _, f := range kids {
		k, _ := strconv.Atoi(f)
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", k))
		if strings.HasPrefix(string(comm), "qemu-system") {
			return k
		}
		if q := findQEMU(k); q != 0 {
			return q
		}
	}
	return 0
}

// threads reads every thread's schedstat and name.
func threads(pid int) map[string]usage {
	out := map[string]usage{}
	dirs, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join(d, "schedstat"))
		f := strings.Fields(string(stat))
		if err != nil || len(f) < 2 {
			continue
		}
		ran, _ := strconv.ParseInt(f[0], 10, 64)
		wait, _ := strconv.ParseInt(f[1], 10, 64)
		comm, _ := os.ReadFile(filepath.Join(d, "comm"))
		name := strings.TrimSpace(string(comm))
		if filepath.Base(d) == strconv.Itoa(pid) {
			name = "main loop" // QEMU's first thread; vCPUs and helpers follow
		}
		out[filepath.Base(d)] = usage{name, ran, wait}
	}
	return out
}

func report(last map[string]usage, wall time.Duration) {
	if len(last) == 0 {
		fmt.Fprintln(os.Stderr, "hostwait: no QEMU seen")
		return
	}
	var tids []string
	for tid, u := range last {
		if u.ranNS > int64(time.Millisecond) {
			tids = append(tids, tid)
		}
	}
	sort.Slice(tids, func(i, j int) bool { return last[tids[i]].ranNS > last[tids[j]].ranNS })
	fmt.Fprintf(os.Stderr, "hostwait: %s of wall time; QEMU's threads (ran 1 ms or more):\n", wall.Round(time.Millisecond))
	for _, tid := range tids {
		u := last[tid]
		ms := func(ns int64) float64 { return float64(ns) / 1e6 }
		fmt.Fprintf(os.Stderr, "  %-8s %-18s ran %9.1f ms, runnable but waiting for a host CPU %9.1f ms (%.1f× its run time)\n",
			tid, u.name, ms(u.ranNS), ms(u.waitNS), float64(u.waitNS)/float64(u.ranNS))
	}
}
