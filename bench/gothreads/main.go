// Command gothreads compares goroutines with OS threads for CPU-bound
// tasks (seed 002). The same T tasks, each a fixed amount of integer work,
// run four ways, each timed with the guest clock:
//
//	goroutines        one goroutine per task (Go multiplexes them on GOMAXPROCS threads)
//	goroutine-pool    NumCPU goroutines take tasks from a channel
//	thread-per-task   one goroutine per task locked to its own OS thread
//	                  (runtime.LockOSThread, never unlocked: the thread is
//	                  created for the task and destroyed when it ends)
//	thread-pool       NumCPU goroutines locked to OS threads take tasks
//	                  from a channel (threads recycled)
//
// Two task sizes show spawn overhead (small tasks) and steady-state
// throughput (large tasks).
//
//	gothreads [-small 2000x20000] [-large 32x20000000]   (TASKSxITERATIONS)
package main

import (
	"flag"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
)

func run(mode string, tasks, n int) uint64 {
	sums := make([]uint64, tasks)
	var wg sync.WaitGroup
	switch mode {
	case "goroutines", "thread-per-task":
		lock := mode == "thread-per-task"
		for t := 0; t < tasks; t++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if lock {
					runtime.LockOSThread() // exits with the goroutine: the thread dies
				}
				sums[t] = guest.Work(uint64(t), n)
			}()
		}
	case "goroutine-pool", "thread-pool":
		lock := mode == "thread-pool"
		jobs := make(chan int, tasks)
		for t := 0; t < tasks; t++ {
			jobs <- t
		}
		close(jobs)
		for w := 0; w < runtime.NumCPU(); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if lock {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread() // keep the thread for the next round
				}
				for t := range jobs {
					sums[t] = guest.Work(uint64(t), n)
				}
			}()
		}
	}
	wg.Wait()
	var s uint64
	for _, v := range sums {
		s += v
	}
	return s
}

func main() {
	sizes := map[string]*string{
		"small": flag.String("small", "2000x20000", "small tasks: TASKSxITERATIONS"),
		"large": flag.String("large", "32x20000000", "large tasks: TASKSxITERATIONS"),
	}
	flag.Parse()
	guest.Work(1, 1000)
	for _, size := range []string{"small", "large"} {
		d := guest.Ints(strings.ReplaceAll(*sizes[size], "x", ","))
		if len(d) != 2 {
			guest.Fail("gothreads", fmt.Errorf("bad size %q", *sizes[size]))
		}
		for _, mode := range []string{"goroutines", "goroutine-pool", "thread-per-task", "thread-pool"} {
			start := time.Now()
			sum := run(mode, d[0], d[1])
			el := time.Since(start)
			guest.Report("gothreads", "size", size, "mode", mode, "tasks", d[0], "iters", d[1],
				"cpus", runtime.NumCPU(), "ms", guest.MS(el), "check", sum)
		}
	}
	guest.PowerOff()
}
