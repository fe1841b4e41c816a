// Command hello is gometal's main demo: an ordinary Go program, built with
// the stock toolchain for linux/riscv64, running on the gometal kernel on
// every hart of a QEMU virt machine.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

func main() {
	fmt.Println("Hello from Go on gometal!")
	fmt.Printf("  cpus: NumCPU=%d GOMAXPROCS=%d\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Printf("  go:   %s/%s %s\n", runtime.GOOS, runtime.GOARCH, runtime.Version())

	// A small pipeline: a generator, four squaring workers, one summer.
	const n = 1000
	nums := make(chan int)
	squares := make(chan int, 16)
	go func() {
		for i := 1; i <= n; i++ {
			nums <- i
		}
		close(nums)
	}()
	var wg sync.WaitGroup
	const workers = 4
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := range nums {
				squares <- x * x
			}
		}()
	}
	go func() { wg.Wait(); close(squares) }()
	sum := 0
	for s := range squares {
		sum += s
	}
	want := n * (n + 1) * (2*n + 1) / 6
	fmt.Printf("  pipeline: sum of squares 1..%d = %d (%d workers) ok=%v\n", n, sum, workers, sum == want)

	start := time.Now()
	time.Sleep(100 * time.Millisecond)
	fmt.Printf("  slept 100ms, measured %v\n", time.Since(start).Round(time.Millisecond))
	fmt.Printf("  time now: %s\n", time.Now().UTC().Format(time.RFC3339))

	if sum != want {
		fmt.Println("pipeline sum is wrong!")
		os.Exit(1)
	}
	fmt.Println("Bye!")
}
