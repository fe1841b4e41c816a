// Test program wakerace: the races of the kernel's wake path, from raw
// system calls on threads locked to goroutines.
//
//   - masked: a signal the waiting thread blocks must not end its futex
//     wait (the wait times out; the signal arrives once unblocked).
//   - signals: threads in futex waits are woken by FUTEX_WAKE while another
//     thread sends them SIGURG as fast as it can, so signals land between
//     "check for a pending signal" and "block": a lost wakeup hangs a round
//     (the watchdog names it).
//   - interrupt: futex waits that only a signal ends, the signal sent at
//     varying moments of the thread's entry into the wait.
//   - timers: futex waits with timeouts of a few tens of µs race wakes from
//     another thread; with no signal sent, a wait must end in 0, EAGAIN or
//     ETIMEDOUT, never EINTR (a stale timer ending the next wait).
//   - exits: groups of locked goroutines end together, so their threads
//     exit at the same moment; the program then exits while more do.
//
// wakerace [-rounds 300] [-phases masked,signals,interrupt,timers,exits]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const (
	futexWait = 0 | 128 // FUTEX_WAIT_PRIVATE
	futexWake = 1 | 128 // FUTEX_WAKE_PRIVATE
	sigBlock  = 0
	sigUnblck = 1
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL wakerace: "+format+"\n", a...)
	os.Exit(1)
}

func watchdog(phase string, d time.Duration) func() {
	t := time.AfterFunc(d, func() { fail("%s: no progress after %v (lost wakeup?)", phase, d) })
	return func() { t.Stop() }
}

// wait blocks in FUTEX_WAIT while *addr == val, for at most timeout (0: none).
func wait(addr *uint32, val uint32, timeout time.Duration) syscall.Errno {
	var tsp unsafe.Pointer
	if timeout > 0 {
		ts := syscall.NsecToTimespec(int64(timeout))
		tsp = unsafe.Pointer(&ts)
	}
	_, _, e := syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWait, uintptr(val), uintptr(tsp), 0, 0)
	return e
}

func wake(addr *uint32) {
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWake, 1, 0, 0, 0)
}

// sigmask changes the calling thread's signal mask for sigs.
func sigmask(how int, sigs ...syscall.Signal) {
	var set uint64
	for _, sig := range sigs {
		set |= uint64(1) << (uint(sig) - 1)
	}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, uintptr(how), uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0); e != 0 {
		fail("rt_sigprocmask: %v", e)
	}
}

// masked: SIGUSR1, blocked by the waiting thread, is sent while it waits.
func masked() {
	defer watchdog("masked", 30*time.Second)()
	got := make(chan os.Signal, 1)
	signal.Notify(got, syscall.SIGUSR1)
	defer signal.Stop(got)
	var word uint32
	tid := make(chan int)
	result := make(chan string)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		// SIGURG too: Go's own preemption signal must not end the wait either.
		sigmask(sigBlock, syscall.SIGUSR1, syscall.SIGURG)
		tid <- syscall.Gettid()
		start := time.Now()
		e := wait(&word, 0, 300*time.Millisecond)
		el := time.Since(start)
		sigmask(sigUnblck, syscall.SIGUSR1, syscall.SIGURG) // now it is delivered
		result <- fmt.Sprintf("%v after %v", e, el.Round(time.Millisecond))
		if e != syscall.ETIMEDOUT || el < 250*time.Millisecond {
			fail("masked: a blocked signal ended the futex wait: %v after %v (want ETIMEDOUT after 300ms)", e, el)
		}
	}()
	t := <-tid
	time.Sleep(50 * time.Millisecond) // let it block
	if err := syscall.Tgkill(os.Getpid(), t, syscall.SIGUSR1); err != nil {
		fail("tgkill: %v", err)
	}
	r := <-result
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		fail("masked: SIGUSR1 never arrived once unblocked")
	}
	fmt.Printf("masked: futex wait with SIGUSR1 blocked ended %s; signal delivered after unblocking\n", r)
}

// signals: n waiters each take `rounds` futex wakes while SIGURG rains on them.
func signals(n, rounds int) {
	defer watchdog("signals", 60*time.Second)()
	words := make([]uint32, n)
	tids := make([]atomic.Int64, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			tids[i].Store(int64(syscall.Gettid()))
			for r := 0; r < rounds; r++ {
				for atomic.LoadUint32(&words[i]) == 0 {
					wait(&words[i], 0, 0) // EINTR from SIGURG: look again
				}
				atomic.StoreUint32(&words[i], 0)
			}
		}()
	}
	stop := make(chan struct{})
	var sent atomic.Int64
	go func() { // the signaller
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for i := range tids {
				if t := tids[i].Load(); t != 0 {
					syscall.Tgkill(os.Getpid(), int(t), syscall.SIGURG)
					sent.Add(1)
				}
			}
		}
	}()
	runtime.LockOSThread()
	for r := 0; r < rounds; r++ {
		for i := range words {
			for atomic.LoadUint32(&words[i]) != 0 {
				runtime.Gosched() // the waiter has not taken the last wake yet
			}
			atomic.StoreUint32(&words[i], 1)
			wake(&words[i])
		}
	}
	runtime.UnlockOSThread()
	wg.Wait()
	close(stop)
	fmt.Printf("signals: %d waiters x %d futex wakes, none lost, with %d SIGURGs sent\n", n, rounds, sent.Load())
}

// interrupt: a thread enters futex waits that nothing wakes; each wait is
// ended by a SIGUSR2 sent at a varying moment of its entry into the kernel.
// A signal landing between the kernel's "any signal pending?" and "mark
// Blocked" was lost: the wait then runs into its 2 s timeout and the signal
// is delivered only after it. (A signal that lands before the thread even
// enters the kernel is delivered at once, in user mode, and the wait then
// rightly times out: Go's handler saw that signal before the timeout.)
func interrupt(rounds int) {
	defer watchdog("interrupt", 120*time.Second)()
	base := time.Now()
	sigs := make(chan os.Signal, 4096)
	signal.Notify(sigs, syscall.SIGUSR2) // handled, so not fatal
	defer signal.Stop(sigs)
	var lastSignal atomic.Int64 // when Go last saw SIGUSR2, ns since base
	go func() {
		for range sigs {
			lastSignal.Store(int64(time.Since(base)))
		}
	}()
	var word uint32
	var seq atomic.Int64 // the waiter's round, published before each wait
	tid := make(chan int)
	done := make(chan struct{})
	early := 0
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- syscall.Gettid()
		for r := 1; r <= rounds; r++ {
			start := int64(time.Since(base))
			seq.Store(int64(r))
			e := wait(&word, 0, 2*time.Second)
			if e == syscall.EINTR {
				continue
			}
			time.Sleep(50 * time.Millisecond) // let Go's signal goroutine catch up
			// A lost signal is delivered only after the 2 s wait returned; one
			// handled before the wait began was seen well before that.
			if e == syscall.ETIMEDOUT && lastSignal.Load()-start < int64(1900*time.Millisecond) {
				early++ // delivered before the wait began
				continue
			}
			fail("interrupt: round %d: futex wait ended %v after %v; the SIGUSR2 sent during it came only after (lost wakeup)",
				r, e, time.Duration(int64(time.Since(base))-start))
		}
		seq.Store(-1)
	}()
	t := <-tid
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	last := int64(0)
	for i := 0; ; i++ {
		cur := seq.Load()
		for cur == last {
			// Yield while waiting for the next round: with one CPU, a spin
			// here holds it until the tick, 20 ms a round.
			syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
			cur = seq.Load()
		}
		if cur < 0 {
			break
		}
		last = cur
		deadline := time.Now().Add(time.Duration(i*7%40) * time.Microsecond)
		for time.Now().Before(deadline) {
		}
		syscall.Tgkill(os.Getpid(), t, syscall.SIGUSR2)
	}
	<-done
	fmt.Printf("interrupt: %d futex waits ended by a signal, none lost (%d signals arrived before the wait)\n", rounds, early)
}

// timers: futex waits with short timeouts race wakes. The waiters block
// SIGURG (which Go's runtime sends to preempt long-running goroutines), so
// no signal may end a wait.
func timers(n, rounds int) {
	defer watchdog("timers", 60*time.Second)()
	var wg sync.WaitGroup
	var woken, timedOut, again atomic.Int64
	for i := 0; i < n; i++ {
		var word uint32
		wg.Add(2)
		go func() { // waiter
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			sigmask(sigBlock, syscall.SIGURG)
			defer sigmask(sigUnblck, syscall.SIGURG)
			for r := 0; r < rounds; r++ {
				timeout := time.Duration(10+(r*37+i*11)%90) * time.Microsecond
				switch e := wait(&word, 0, timeout); e {
				case 0:
					woken.Add(1)
				case syscall.ETIMEDOUT:
					timedOut.Add(1)
				case syscall.EAGAIN:
					again.Add(1)
				default:
					fail("timers: futex wait round %d ended with %v and no signal was sent", r, e)
				}
			}
		}()
		go func() { // waker
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for r := 0; r < rounds; r++ {
				deadline := time.Now().Add(time.Duration((r*53+i*7)%80) * time.Microsecond)
				for time.Now().Before(deadline) {
				}
				wake(&word)
			}
		}()
	}
	wg.Wait()
	fmt.Printf("timers: %d pairs x %d timed waits: %d woken, %d timed out, %d EAGAIN, no EINTR\n",
		n, rounds, woken.Load(), timedOut.Load(), again.Load())
}

// exits: groups of locked goroutines whose threads exit together.
func exits(groups, size int) {
	defer watchdog("exits", 60*time.Second)()
	for g := 0; g < groups; g++ {
		var ready, wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < size; i++ {
			ready.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread() // never unlocked: the thread exits with it
				ready.Done()
				<-start
			}()
		}
		ready.Wait()
		close(start)
		wg.Wait()
	}
	fmt.Printf("exits: %d groups of %d threads exited together\n", groups, size)
}

func main() {
	rounds := flag.Int("rounds", 300, "futex wakes per waiter in the signals and timers phases")
	phases := flag.String("phases", "masked,signals,interrupt,timers,exits", "phases to run, in this order")
	flag.Parse()
	t0 := time.Now()
	for _, p := range strings.Split(*phases, ",") {
		switch p {
		case "masked":
			masked()
		case "signals":
			signals(4, *rounds)
		case "interrupt":
			interrupt(*rounds * 4)
		case "timers":
			timers(4, *rounds)
		case "exits":
			exits(8, 8)
		default:
			fail("unknown phase %q", p)
		}
	}
	fmt.Printf("wakerace: all phases in %v\n", time.Since(t0).Round(time.Millisecond))
	fmt.Println("PASS wakerace")
	// Exit while more threads are exiting: both exit paths at once.
	for i := 0; i < 8; i++ {
		go func() { runtime.LockOSThread() }()
	}
	os.Exit(0)
}
