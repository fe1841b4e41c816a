// Command placement is the InfOS balancing workload (§5.2.1) for comparing
// gometal's thread placement policies: T threads (goroutines locked to OS
// threads, GOMAXPROCS=T so all of them run Go code at once) each repeatedly
// hash their own slice of a shared array, then sleep a random 0–2 ms in
// nanosleep(2), for a fixed time. The figure is throughput (slices hashed
// per second, all threads together) and how evenly the threads progressed.
// The kernel's own statistics (`stats`) give the migrations.
//
//	placement [-threads 0 (2×NumCPU)] [-slice 131072] [-seconds 4] [-sleep-us 2000]
package main

import (
	"flag"
	"math/rand"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
)

// fnv hashes p with 64-bit FNV-1a.
func fnv(p []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range p {
		h ^= uint64(b)
		h *= 1099511628211
	}
	return h
}

func main() {
	threads := flag.Int("threads", 0, "threads (0: 2×NumCPU)")
	slice := flag.Int("slice", 131072, "bytes each thread hashes per round")
	seconds := flag.Float64("seconds", 4, "how long to run")
	sleepUS := flag.Int("sleep-us", 2000, "longest random sleep after each round, µs")
	flag.Parse()
	t := *threads
	if t == 0 {
		t = 2 * runtime.NumCPU()
	}
	runtime.GOMAXPROCS(t)
	data := make([]byte, t**slice)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var stop atomic.Bool
	counts := make([]int64, t)
	var sink atomic.Uint64
	var wg sync.WaitGroup
	start := time.Now()
	for k := 0; k < t; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			rng := rand.New(rand.NewSource(int64(k) + 1))
			mine := data[k**slice : (k+1)**slice]
			var h uint64
			for !stop.Load() {
				h ^= fnv(mine)
				counts[k]++
				ts := syscall.NsecToTimespec(int64(rng.Intn(*sleepUS+1)) * 1000)
				syscall.Nanosleep(&ts, nil)
			}
			sink.Add(h)
		}()
	}
	time.Sleep(time.Duration(*seconds * float64(time.Second)))
	stop.Store(true)
	wg.Wait()
	el := time.Since(start)
	var total int64
	for _, c := range counts {
		total += c
	}
	sorted := append([]int64(nil), counts...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	guest.Report("placement", "threads", t, "cpus", runtime.NumCPU(), "ms", guest.MS(el),
		"rounds", total, "per_s", float64(total)/el.Seconds(),
		"min_thread", sorted[0], "max_thread", sorted[len(sorted)-1], "check", sink.Load()&0xff)
	guest.PowerOff()
}
