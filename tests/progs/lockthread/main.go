// Test program lockthread: runtime.LockOSThread wires a goroutine to one
// kernel thread. While locked, the thread id (gettid) must not change across
// Gosched, channel blocking, sleeps, GC and system calls, however the kernel
// moves threads between harts; goroutines locked at the same time must have
// different thread ids; and a locked goroutine that returns without
// unlocking makes the runtime end its thread (the kernel's thread-exit
// path, exit rather than exit_group), after which the program carries on.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL lockthread: "+format+"\n", a...)
	os.Exit(1)
}

var initTid int

// Locking in init makes main run on the main thread, whose tid is the pid.
func init() {
	runtime.LockOSThread()
	initTid = syscall.Gettid()
}

const (
	lockers = 6
	rounds  = 200
)

// lockedWork locks its thread, records the tid, then blocks and yields in
// every way and checks the tid after each. It reports its tid once all
// lockers are locked at the same time (so their tids must differ), and waits
// for release before going on.
func lockedWork(id int, tids chan<- int, release <-chan struct{}, ping chan int, unlock bool) {
	runtime.LockOSThread()
	if unlock {
		defer runtime.UnlockOSThread()
	}
	tid := syscall.Gettid()
	check := func(what string, r int) {
		if got := syscall.Gettid(); got != tid {
			fail("locker %d: tid changed from %d to %d after %s (round %d)", id, tid, got, what, r)
		}
	}
	tids <- tid
	<-release
	check("waiting for release", 0)
	var sink []byte
	for r := 0; r < rounds; r++ {
		runtime.Gosched()
		check("Gosched", r)
		ping <- r
		<-ping
		check("channel ping-pong", r)
		if r%20 == 0 {
			time.Sleep(time.Millisecond)
			check("Sleep", r)
			sink = make([]byte, 64<<10)
			runtime.GC()
			check("GC", r)
		}
		if r%10 == 0 {
			syscall.Getpid()
			_, _ = syscall.Getcwd(make([]byte, 64))
			check("syscalls", r)
		}
		for i := 0; i < 2000; i++ { // a little CPU, so the tick can preempt us
			sink = append(sink[:0], byte(i))
		}
		check("work", r)
	}
	_ = sink
}

func main() {
	if initTid != os.Getpid() {
		fail("main locked in init runs on tid %d, want the pid %d", initTid, os.Getpid())
	}
	if tid := syscall.Gettid(); tid != initTid {
		fail("main moved from tid %d to %d while locked", initTid, tid)
	}
	runtime.UnlockOSThread()
	fmt.Printf("main on the main thread: tid %d = pid\n", initTid)

	for phase, unlock := range []bool{true, false} {
		tids := make(chan int, lockers)
		release := make(chan struct{})
		var wg sync.WaitGroup
		for id := 0; id < lockers; id++ {
			ping := make(chan int)
			go func() { // the locked goroutine's partner, not locked
				for v := range ping {
					ping <- v
				}
			}()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(ping)
				lockedWork(id, tids, release, ping, unlock)
			}()
		}
		seen := map[int]bool{}
		for i := 0; i < lockers; i++ {
			select {
			case tid := <-tids:
				if seen[tid] {
					fail("phase %d: two goroutines locked at once share tid %d", phase, tid)
				}
				seen[tid] = true
			case <-time.After(60 * time.Second):
				fail("phase %d: only %d of %d lockers got a thread", phase, i, lockers)
			}
		}
		close(release)
		wg.Wait()
		what := "unlocked before returning"
		if !unlock {
			what = "returned locked (threads exited)"
		}
		fmt.Printf("phase %d: %d locked goroutines on distinct tids %v, %s\n", phase, lockers, keys(seen), what)
	}

	// Goroutines that exit while locked, one after another: each takes its
	// thread with it, and the runtime has to make new ones.
	exited := map[int]bool{}
	for i := 0; i < 10; i++ {
		ch := make(chan int)
		go func() {
			runtime.LockOSThread()
			ch <- syscall.Gettid()
		}()
		exited[<-ch] = true
		time.Sleep(time.Millisecond)
	}
	fmt.Printf("10 locked goroutines exited without unlocking (%d distinct tids)\n", len(exited))

	// The program carries on: parallel work, a GC, and a lock on a fresh
	// thread.
	var wg sync.WaitGroup
	sums := make([]int, 16)
	for g := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100000; i++ {
				sums[g] += i % 7
			}
		}()
	}
	wg.Wait()
	for g, s := range sums {
		if s != 299995 {
			fail("after thread exits: goroutine %d sum %d, want 299995", g, s)
		}
	}
	runtime.GC()
	runtime.LockOSThread()
	tid := syscall.Gettid()
	time.Sleep(2 * time.Millisecond)
	runtime.Gosched()
	if got := syscall.Gettid(); got != tid {
		fail("main locked again: tid %d became %d", tid, got)
	}
	runtime.UnlockOSThread()
	fmt.Println("work after thread exits ok")
	fmt.Println("PASS lockthread")
}

func keys(m map[int]bool) []int {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	// Small: insertion sort keeps the output stable.
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}
