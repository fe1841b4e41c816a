// Command arith is MultiGo's simple_arithmetic benchmark (§5.1): G
// goroutines each perform a fixed number of additions; the elapsed time
// (guest clock) for all of them is reported for each G, then the machine
// powers off. Run on 1 and on N harts, it shows how much of the parallelism
// the kernel turns into speed.
//
//	arith [-g 1,2,4,8,16] [-n 50000000]
package main

import (
	"flag"
	"runtime"
	"sync"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
)

// adds performs n additions; noinline keeps the loop a loop.
//
//go:noinline
func adds(n int, step uint64) uint64 {
	var s uint64
	for i := 0; i < n; i++ {
		s += step
		step++
	}
	return s
}

func main() {
	gs := flag.String("g", "1,2,4,8,16", "goroutine counts")
	n := flag.Int("n", 50_000_000, "additions per goroutine")
	flag.Parse()
	adds(1000, 1) // warm up
	for _, g := range guest.Ints(*gs) {
		sums := make([]uint64, g)
		var wg sync.WaitGroup
		start := time.Now()
		for k := 0; k < g; k++ {
			wg.Add(1)
			go func() { defer wg.Done(); sums[k] = adds(*n, uint64(k)) }()
		}
		wg.Wait()
		el := time.Since(start)
		guest.Report("arith", "g", g, "n", *n, "cpus", runtime.NumCPU(), "ms", guest.MS(el), "check", sums[0]+sums[g-1])
	}
	guest.PowerOff()
}
