// Command micro measures the kernel paths a Go program leans on, each with
// the guest clock, and reports one BENCH line per figure:
//
//	pingpong-same    goroutine switch: two goroutines ping-pong over
//	                 unbuffered channels with GOMAXPROCS=1 (Go's own switch,
//	                 no kernel involvement), ns per round trip
//	pingpong-threads the same with each goroutine locked to its own OS
//	                 thread (GOMAXPROCS=NumCPU): every hand-over is a futex
//	                 wake of another thread, likely on another hart
//	thread-create    a goroutine that locks its thread and exits, so the
//	                 runtime must clone a new thread each time, µs per thread
//	syscall          getpid(2) round trip, ns
//	futex-wake       latency from FUTEX_WAKE on one thread to the waiter
//	                 running on another thread (both locked; raw futex
//	                 calls), µs: p50/p99/max
//	timer            cyclictest-style: sleep 1 ms with clock_nanosleep,
//	                 lateness = wake-up time − deadline, µs: p50/p99/max and
//	                 a histogram
//	gc-pause         GC stop-the-world pauses with a spinning goroutine on
//	                 every hart (each pause must preempt them all with
//	                 SIGURG, so this measures signal delivery across harts):
//	                 the runtime's own /sched/pauses/total/gc:seconds
//	                 histogram over -gc forced collections, µs: p50/p99/max
//	munmap           mmap one page, touch it, munmap it, while a thread on
//	                 every other hart spins: the unmap must leave every
//	                 hart's TLB (IPIs on riscv64, broadcast TLBI on arm64),
//	                 µs per cycle
//
//	micro [-pingpong 20000] [-threads 500] [-syscalls 200000] [-futex 2000] [-timer 10000] [-gc 200] [-munmap 2000]
package main

import (
	"flag"
	"math"
	"runtime"
	"runtime/metrics"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"gometal.dev/gometal/bench/internal/guest"
)

func pingpong(n int, lock bool) time.Duration {
	ping, pong := make(chan int), make(chan int)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if lock {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		for v := range ping {
			pong <- v + 1
		}
	}()
	if lock {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		ping <- i
		<-pong
	}
	el := time.Since(start)
	close(ping)
	wg.Wait()
	return el
}

func threadCreate(n int) time.Duration {
	done := make(chan struct{})
	start := time.Now()
	for i := 0; i < n; i++ {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			done <- struct{}{}
		}()
		<-done
	}
	return time.Since(start)
}

func munmapCycles(n int) time.Duration {
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 1; i < runtime.NumCPU(); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			for !stop.Load() {
			}
		}()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	for i := 0; i < n; i++ {
		b, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			panic(err)
		}
		b[0] = 1
		if err := syscall.Munmap(b); err != nil {
			panic(err)
		}
	}
	el := time.Since(start)
	stop.Store(true)
	wg.Wait()
	return el
}

func syscalls(n int) time.Duration {
	start := time.Now()
	for i := 0; i < n; i++ {
		syscall.RawSyscall(syscall.SYS_GETPID, 0, 0, 0)
	}
	return time.Since(start)
}

const (
	futexWait = 0 | 128 // FUTEX_WAIT_PRIVATE
	futexWake = 1 | 128 // FUTEX_WAKE_PRIVATE
)

func futex(addr *uint32, op, val uintptr) syscall.Errno {
	_, _, e := syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), op, val, 0, 0, 0)
	return e
}

// futexLatency: a waiter thread sleeps in FUTEX_WAIT on word; the waker
// stamps the time, sets word and calls FUTEX_WAKE; the waiter reads the
// clock as soon as it runs. The waker waits for the waiter to be asleep
// again (word back to 0 and a short pause) before the next round.
func futexLatency(n int) []float64 {
	var word uint32
	var stamp atomic.Int64
	var asleep atomic.Int32
	lat := make([]float64, 0, n)
	base := time.Now()
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := 0; i < n; i++ {
			for atomic.LoadUint32(&word) == 0 {
				asleep.Store(1)
				futex(&word, futexWait, 0)
			}
			t := time.Since(base).Nanoseconds()
			lat = append(lat, float64(t-stamp.Load())/1e3)
			asleep.Store(0)
			atomic.StoreUint32(&word, 0)
		}
		close(done)
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := 0; i < n; i++ {
		// Wait until the waiter is (about to be) blocked in the kernel.
		for asleep.Load() == 0 || atomic.LoadUint32(&word) != 0 {
			runtime.Gosched()
		}
		time.Sleep(200 * time.Microsecond)
		stamp.Store(time.Since(base).Nanoseconds())
		atomic.StoreUint32(&word, 1)
		futex(&word, futexWake, 1)
	}
	<-done
	return lat
}

func timerLateness(n int) []float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const period = time.Millisecond
	lat := make([]float64, n)
	ts := syscall.NsecToTimespec(int64(period))
	for i := 0; i < n; i++ {
		start := time.Now()
		// Raw nanosleep: the thread sleeps in the kernel, not in Go's timer heap.
		syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
		lat[i] = float64((time.Since(start) - period).Nanoseconds()) / 1e3
	}
	return lat
}

// gcPauses forces n collections while NumCPU goroutines spin in loops
// without calls (only async preemption stops them) and returns the
// runtime's histogram of the stop-the-world pauses they caused.
func gcPauses(n int) *metrics.Float64Histogram {
	const name = "/sched/pauses/total/gc:seconds"
	read := func() *metrics.Float64Histogram {
		s := []metrics.Sample{{Name: name}}
		metrics.Read(s)
		return s[0].Value.Float64Histogram()
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < runtime.NumCPU(); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !stop.Load() {
				x++
			}
			_ = x
		}()
	}
	before := read()
	var keep [][]byte
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, 64<<10))
		if len(keep) > 16 {
			keep = keep[1:]
		}
		runtime.GC()
	}
	after := read()
	stop.Store(true)
	wg.Wait()
	for i := range after.Counts {
		after.Counts[i] -= before.Counts[i]
	}
	return after
}

// histPercentiles gives p50, p99 and max (µs) of a runtime/metrics time
// histogram: each sample counts as its bucket's upper bound (the lower
// one for the last, unbounded bucket).
func histPercentiles(h *metrics.Float64Histogram) (p50, p99, max float64, total uint64) {
	for _, c := range h.Counts {
		total += c
	}
	bound := func(i int) float64 {
		if math.IsInf(h.Buckets[i+1], 1) {
			return h.Buckets[i] * 1e6
		}
		return h.Buckets[i+1] * 1e6
	}
	var seen uint64
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		if seen < (total+1)/2 && seen+c >= (total+1)/2 {
			p50 = bound(i)
		}
		if q := (total*99 + 99) / 100; seen < q && seen+c >= q {
			p99 = bound(i)
		}
		seen += c
		max = bound(i)
	}
	return
}

func reportDist(name string, v []float64, withSamples bool) {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	kv := []any{"name", name, "samples", len(s), "p50_us", guest.Percentile(s, 50), "p99_us", guest.Percentile(s, 99),
		"max_us", s[len(s)-1], "min_us", s[0], "cpus", runtime.NumCPU()}
	if withSamples {
		// Histogram in 10 µs buckets up to 5 ms; the host draws it.
		const bucket, buckets = 10.0, 500
		h := make([]int, buckets+1)
		for _, x := range s {
			b := int(x / bucket)
			if b < 0 {
				b = 0
			}
			if b > buckets {
				b = buckets
			}
			h[b]++
		}
		kv = append(kv, "hist_bucket_us", bucket, "hist", h)
	}
	guest.Report("micro", kv...)
}

func main() {
	np := flag.Int("pingpong", 20000, "ping-pong round trips")
	nt := flag.Int("threads", 500, "threads created")
	ns := flag.Int("syscalls", 200000, "getpid calls")
	nf := flag.Int("futex", 2000, "futex wake samples")
	nl := flag.Int("timer", 10000, "1 ms sleeps")
	ng := flag.Int("gc", 200, "forced GC cycles with spinners on every hart")
	nm := flag.Int("munmap", 2000, "mmap/touch/munmap cycles with spinners on the other harts")
	flag.Parse()
	cpus := runtime.NumCPU()

	prev := runtime.GOMAXPROCS(1)
	el := pingpong(*np, false)
	runtime.GOMAXPROCS(prev)
	guest.Report("micro", "name", "pingpong-same", "ns", float64(el.Nanoseconds())/float64(*np), "n", *np, "cpus", cpus)

	el = pingpong(*np/4, true)
	guest.Report("micro", "name", "pingpong-threads", "ns", float64(el.Nanoseconds())/float64(*np/4), "n", *np/4, "cpus", cpus)

	el = threadCreate(*nt)
	guest.Report("micro", "name", "thread-create", "us", float64(el.Nanoseconds())/1e3/float64(*nt), "n", *nt, "cpus", cpus)

	el = syscalls(*ns)
	guest.Report("micro", "name", "syscall", "ns", float64(el.Nanoseconds())/float64(*ns), "n", *ns, "cpus", cpus)

	reportDist("futex-wake", futexLatency(*nf), false)
	reportDist("timer", timerLateness(*nl), true)
	el = munmapCycles(*nm)
	guest.Report("micro", "name", "munmap", "us", float64(el.Nanoseconds())/1e3/float64(*nm), "n", *nm, "cpus", cpus)

	p50, p99, mx, pauses := histPercentiles(gcPauses(*ng))
	guest.Report("micro", "name", "gc-pause", "samples", pauses, "p50_us", p50, "p99_us", p99, "max_us", mx, "cpus", cpus)
	guest.PowerOff()
}
