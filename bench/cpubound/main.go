// Command cpubound is the SMP scaling benchmark: G goroutines each do a
// fixed amount of integer arithmetic; the elapsed time (guest clock) is the
// figure. With more harts the same work should take proportionally less.
//
//	cpubound [-g goroutines] [-n iterations per goroutine]
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
)

func main() {
	g := flag.Int("g", 4, "goroutines")
	n := flag.Int("n", 20_000_000, "iterations per goroutine")
	flag.Parse()

	want := make([]uint64, *g)
	start := time.Now()
	results := make(chan [2]uint64, *g)
	for i := 0; i < *g; i++ {
		go func(i int) { results <- [2]uint64{uint64(i), guest.Work(uint64(i)+1, *n)} }(i)
	}
	got := make([]uint64, *g)
	for i := 0; i < *g; i++ {
		r := <-results
		got[r[0]] = r[1]
	}
	elapsed := time.Since(start)

	for i := range want {
		want[i] = guest.Work(uint64(i)+1, 1000) // cheap self-check of the kernel's FP/int state
		if got[i] == 0 {
			fmt.Println("FAIL cpubound: zero sum")
			os.Exit(1)
		}
	}
	fmt.Printf("cpubound: %d goroutines x %d iterations on %d CPUs: %.0f ms\n",
		*g, *n, runtime.NumCPU(), float64(elapsed.Microseconds())/1000)
}
