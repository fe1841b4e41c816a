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
)

// work is a call-free loop the compiler cannot remove or vectorise away.
func work(seed uint64, n int) uint64 {
	x, sum := seed|1, uint64(0)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		sum += x
	}
	return sum
}

func main() {
	g := flag.Int("g", 4, "goroutines")
	n := flag.Int("n", 20_000_000, "iterations per goroutine")
	flag.Parse()

	want := make([]uint64, *g)
	start := time.Now()
	results := make(chan [2]uint64, *g)
	for i := 0; i < *g; i++ {
		go func(i int) { results <- [2]uint64{uint64(i), work(uint64(i)+1, *n)} }(i)
	}
	got := make([]uint64, *g)
	for i := 0; i < *g; i++ {
		r := <-results
		got[r[0]] = r[1]
	}
	elapsed := time.Since(start)

	for i := range want {
		want[i] = work(uint64(i)+1, 1000) // cheap self-check of the kernel's FP/int state
		if got[i] == 0 {
			fmt.Println("FAIL cpubound: zero sum")
			os.Exit(1)
		}
	}
	fmt.Printf("cpubound: %d goroutines x %d iterations on %d CPUs: %.0f ms\n",
		*g, *n, runtime.NumCPU(), float64(elapsed.Microseconds())/1000)
}
