// Command wakelat measures how long a thread woken while CPUs idle takes
// to run: the held-out measurement behind the target "a thread made
// runnable while some CPU is idle runs within 100 µs" (issue 25).
//
// Two goroutines locked to their own OS threads, nothing else running: the
// waker sleeps a random gap in nanosleep(2) (so CPUs go idle and nap),
// stamps the guest clock and FUTEX_WAKEs the waiter, which reads the clock
// as soon as it runs; the difference is one sample. Two modes, for the two
// things a waker does next:
//
//	spin   the waker keeps its CPU busy until the waiter answers (as Go's
//	       wakep: a running M wakes an idle one and carries on)
//	block  the waker blocks in FUTEX_WAIT for the answer (a hand-over:
//	       a channel send to a goroutine locked to another thread)
//
// One BENCH line per mode: p50, p90, p99, max (µs) and the samples.
//
//	wakelat [-rounds 2000] [-gap-us 1500] [-modes spin,block]
package main

import (
	"flag"
	"math/rand"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"gometal.dev/gometal/bench/internal/guest"
)

const (
	futexWait = 0 | 128 // FUTEX_WAIT_PRIVATE
	futexWake = 1 | 128 // FUTEX_WAKE_PRIVATE
)

func futex(addr *uint32, op, val uintptr) {
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), op, val, 0, 0, 0)
}

// waitFor blocks in FUTEX_WAIT until *word is non-zero, then clears it.
func waitFor(word *uint32) {
	for atomic.LoadUint32(word) == 0 {
		futex(word, futexWait, 0)
	}
	atomic.StoreUint32(word, 0)
}

func post(word *uint32) {
	atomic.StoreUint32(word, 1)
	futex(word, futexWake, 1)
}

func nanosleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// measure runs `rounds` wakeups in `mode` and returns the latencies in µs.
func measure(mode string, rounds, gapUS int) []float64 {
	var wake, ack uint32
	var stamp atomic.Int64
	base := time.Now()
	lat := make([]float64, 0, rounds)
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := 0; i < rounds; i++ {
			waitFor(&wake)
			lat = append(lat, float64(time.Since(base).Nanoseconds()-stamp.Load())/1e3)
			post(&ack)
		}
		close(done)
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < rounds; i++ {
		// At least 200 µs: the waiter is back in FUTEX_WAIT by then.
		nanosleep(time.Duration(200+rng.Intn(gapUS)) * time.Microsecond)
		stamp.Store(time.Since(base).Nanoseconds())
		post(&wake)
		if mode == "spin" {
			for atomic.LoadUint32(&ack) == 0 {
			}
			atomic.StoreUint32(&ack, 0)
		} else {
			waitFor(&ack)
		}
	}
	<-done
	return lat
}

func main() {
	rounds := flag.Int("rounds", 2000, "wakeups per mode")
	gapUS := flag.Int("gap-us", 1500, "longest random pause before a wakeup, µs (plus 200)")
	modes := flag.String("modes", "spin,block", "what the waker does after the wakeup: spin, block")
	flag.Parse()
	runtime.GOMAXPROCS(runtime.NumCPU())
	for _, mode := range strings.Split(*modes, ",") {
		if mode != "spin" && mode != "block" {
			guest.Report("wakelat", "error", "unknown mode "+mode)
			continue
		}
		l := measure(mode, *rounds, *gapUS)
		sort.Float64s(l)
		over := sort.SearchFloat64s(l, 100)
		guest.Report("wakelat", "mode", mode, "cpus", runtime.NumCPU(), "samples", len(l),
			"p50_us", guest.Percentile(l, 50), "p90_us", guest.Percentile(l, 90), "p99_us", guest.Percentile(l, 99), "max_us", l[len(l)-1],
			"over_100us", len(l)-over)
	}
	guest.PowerOff()
}
