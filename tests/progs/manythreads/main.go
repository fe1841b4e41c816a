// Test program manythreads: N OS threads at once (issue 23: as many as
// Linux with the same memory). Each of N goroutines locks itself to its
// own thread and waits; once all are running they are released, and each
// thread ends with its goroutine.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func main() {
	n := 10000
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	debug.SetMaxThreads(n + 1000) // Go's own default limit is 10,000
	start := time.Now()
	var ready, done sync.WaitGroup
	release := make(chan struct{})
	tids := make([]int, n)
	ready.Add(n)
	done.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			defer done.Done()
			runtime.LockOSThread() // returning locked ends the thread
			tids[i] = syscall.Gettid()
			ready.Done()
			<-release
		}()
	}
	ready.Wait()
	distinct := map[int]bool{}
	for _, t := range tids {
		distinct[t] = true
	}
	if len(distinct) != n {
		fmt.Printf("FAIL manythreads: %d goroutines on %d distinct threads\n", n, len(distinct))
		os.Exit(1)
	}
	fmt.Printf("manythreads: %d threads running at once after %v\n", n, time.Since(start).Round(time.Millisecond))
	close(release)
	done.Wait()
	fmt.Println("PASS manythreads")
}
