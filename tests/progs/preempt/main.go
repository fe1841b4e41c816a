// Test program preempt: goroutines spinning in loops with no function calls
// (no cooperative preemption points) must not stop the garbage collector.
// Stopping them needs asynchronous preemption (SIGURG delivered by tgkill);
// without it runtime.GC hangs forever and the harness timeout catches it.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

const spinners = 8

var (
	stop    atomic.Bool
	started atomic.Int32
	sink    []byte
	results [spinners]uint64
)

// spin loops without calls: the only memory access in the loop is an
// atomic load (an intrinsic, not a call) every 1<<16 iterations.
func spin(i int, wg *sync.WaitGroup) {
	defer wg.Done()
	started.Add(1)
	var x uint64
	for {
		x++
		if x&(1<<16-1) == 0 && stop.Load() {
			break
		}
	}
	results[i] = x
}

func main() {
	var wg sync.WaitGroup
	for i := 0; i < spinners; i++ {
		wg.Add(1)
		go spin(i, &wg)
	}
	// Wait until every spinner has started (on one hart this itself needs
	// the spinners to be preempted).
	deadline := time.Now().Add(60 * time.Second)
	for started.Load() < spinners {
		if time.Now().After(deadline) {
			fmt.Printf("FAIL preempt: only %d of %d spinners started\n", started.Load(), spinners)
			os.Exit(1)
		}
		runtime.Gosched()
	}
	fmt.Println("spinners started:", started.Load())

	t0 := time.Now()
	for gc := 0; gc < 5; gc++ {
		for i := 0; i < 64; i++ {
			sink = make([]byte, 16<<10+i)
		}
		runtime.GC()
		fmt.Printf("GC %d done\n", gc+1)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("ReadMemStats: NumGC=%d HeapAlloc=%d KiB (%v)\n", ms.NumGC, ms.HeapAlloc>>10, time.Since(t0).Round(time.Millisecond))
	if ms.NumGC < 5 {
		fmt.Printf("FAIL preempt: NumGC = %d, want >= 5\n", ms.NumGC)
		os.Exit(1)
	}

	stop.Store(true)
	wg.Wait()
	for i, x := range results {
		if x == 0 {
			fmt.Printf("FAIL preempt: spinner %d never ran\n", i)
			os.Exit(1)
		}
	}
	fmt.Println("spinners stopped")
	fmt.Println("PASS preempt")
}
