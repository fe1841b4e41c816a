// Command balance is the "balancing benchmark" InfOS's future work asks for
// (seed 003, §5.2.1): a program that runs, at the same time,
//
//   - I/O: many client goroutines each send a small request over their own
//     loopback TCP connection after a random think time (a Go timer), and
//     one server goroutine per connection answers it; the latency of every
//     request (send → reply read) is recorded;
//   - CPU: one goroutine per CPU repeatedly multiplies its own N×N float64
//     matrices with a blocked (tiled) loop, a working set of 3·N²·8 bytes
//     that stays cache-resident only if the goroutine's thread stays where
//     its cache is.
//
// and reports the I/O latency p50/p99 and the CPU throughput (Mflop/s,
// all workers together) of the same run, so a placement policy cannot buy
// one figure with the other unseen.
//
// GOMAXPROCS is 2×NumCPU by default: with one P per CPU and a CPU worker on
// every P, a ready I/O goroutine waits for Go's own 10 ms preemption and
// no kernel decision matters; with spare Ps the I/O goroutines run on Ms
// of their own, which block in epoll or futex between requests and must
// be woken and placed by the kernel next to threads that never block —
// the mixture of I/O-bound and CPU-bound threads §5.2 describes.
//
//	balance [-seconds 4] [-warmup 0.5] [-n 128] [-workers 0] [-procs 0] [-clients 0] [-think-us 2000]
package main

import (
	"encoding/binary"
	"flag"
	"io"
	"math/rand"
	"net"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
)

// tile is the blocking factor: three 32×32 float64 tiles (24 KiB) fit a
// typical L1 data cache, the whole matrices (3·N²·8 bytes) the L2.
const tile = 32

// multiply adds a×b to c (N×N, row-major) tile by tile, counting the
// multiply-adds done in flops (2 per multiply-add) as it goes.
func multiply(n int, a, b, c []float64, flops *atomic.Int64, stop *atomic.Bool) {
	for ii := 0; ii < n; ii += tile {
		for kk := 0; kk < n; kk += tile {
			for jj := 0; jj < n; jj += tile {
				iEnd, kEnd, jEnd := min(ii+tile, n), min(kk+tile, n), min(jj+tile, n)
				for i := ii; i < iEnd; i++ {
					ci := c[i*n+jj : i*n+jEnd]
					for k := kk; k < kEnd; k++ {
						aik := a[i*n+k]
						bk := b[k*n+jj : k*n+jEnd]
						for j := range ci {
							ci[j] += aik * bk[j]
						}
					}
				}
				flops.Add(int64(2 * (iEnd - ii) * (kEnd - kk) * (jEnd - jj)))
			}
			if stop.Load() {
				return
			}
		}
	}
}

// cpuWorker multiplies its own matrices until stop.
func cpuWorker(n, seed int, flops *atomic.Int64, stop *atomic.Bool, sink *atomic.Uint64) {
	a, b, c := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	for i := range a {
		a[i] = float64((i*7+seed)%17) / 16
		b[i] = float64((i*5+seed)%13) / 12
	}
	for !stop.Load() {
		multiply(n, a, b, c, flops, stop)
		for i := range c {
			c[i] *= 0.5 // keep the values bounded
		}
	}
	sink.Add(uint64(c[n+1]))
}

// request is what a client sends: its send time (ns since base) and padding.
const requestSize = 64

// serve answers each request on conn with the same bytes.
func serve(conn net.Conn) {
	defer conn.Close()
	buf := make([]byte, requestSize)
	for {
		if _, err := io.ReadFull(conn, buf); err != nil {
			return
		}
		if _, err := conn.Write(buf); err != nil {
			return
		}
	}
}

// client sends a request after a random think time, waits for the reply
// and records the round trip in µs (after the warm-up) until stop.
func client(addr string, seed int64, thinkUS int, base time.Time, warm *atomic.Bool, stop *atomic.Bool) []float64 {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		guest.Fail("balance", err)
	}
	defer conn.Close()
	rng := rand.New(rand.NewSource(seed))
	buf := make([]byte, requestSize)
	var lat []float64
	for !stop.Load() {
		time.Sleep(time.Duration(rng.Intn(thinkUS+1)) * time.Microsecond)
		sent := time.Since(base)
		binary.LittleEndian.PutUint64(buf, uint64(sent))
		if _, err := conn.Write(buf); err != nil {
			guest.Fail("balance", err)
		}
		if _, err := io.ReadFull(conn, buf); err != nil {
			guest.Fail("balance", err)
		}
		if warm.Load() {
			lat = append(lat, float64(time.Since(base)-sent)/1e3)
		}
	}
	return lat
}

func main() {
	seconds := flag.Float64("seconds", 4, "measured time")
	warmup := flag.Float64("warmup", 0.5, "time before measuring")
	n := flag.Int("n", 128, "matrix size (working set 3·n²·8 bytes per worker)")
	workers := flag.Int("workers", 0, "CPU workers (0: NumCPU)")
	procs := flag.Int("procs", 0, "GOMAXPROCS (0: 2×NumCPU)")
	clients := flag.Int("clients", 0, "I/O clients, one connection each (0: 8×NumCPU)")
	thinkUS := flag.Int("think-us", 2000, "longest random think time between a client's requests, µs")
	flag.Parse()
	cpus := runtime.NumCPU()
	w, p, c := *workers, *procs, *clients
	if w == 0 {
		w = cpus
	}
	if p == 0 {
		p = 2 * cpus
	}
	if c == 0 {
		c = 8 * cpus
	}
	runtime.GOMAXPROCS(p)
	// Linux as /init starts with lo down; gometal's is always up (an
	// error there changes nothing: the Dial below would say).
	_ = guest.LoopbackUp()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		guest.Fail("balance", err)
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(conn)
		}
	}()

	var flops atomic.Int64
	var stop, warm atomic.Bool
	var sink atomic.Uint64
	var wg sync.WaitGroup
	base := time.Now()
	for i := 0; i < w; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); cpuWorker(*n, i, &flops, &stop, &sink) }()
	}
	lats := make([][]float64, c)
	for i := 0; i < c; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lats[i] = client(ln.Addr().String(), int64(i)+1, *thinkUS, base, &warm, &stop)
		}()
	}
	time.Sleep(time.Duration(*warmup * float64(time.Second)))
	flops0, start := flops.Load(), time.Now()
	warm.Store(true)
	time.Sleep(time.Duration(*seconds * float64(time.Second)))
	warm.Store(false)
	el, done := time.Since(start), flops.Load()-flops0
	stop.Store(true)
	wg.Wait()
	ln.Close()

	var all []float64
	for _, l := range lats {
		all = append(all, l...)
	}
	sort.Float64s(all)
	if len(all) == 0 {
		guest.Report("balance", "error", "no request completed")
		guest.PowerOff()
	}
	guest.Report("balance", "cpus", cpus, "procs", p, "workers", w, "clients", c, "n", *n, "ms", guest.MS(el),
		"requests", len(all), "io_p50_us", guest.Percentile(all, 50), "io_p99_us", guest.Percentile(all, 99), "io_max_us", all[len(all)-1],
		"mflops", float64(done)/el.Seconds()/1e6, "check", sink.Load()&0xff)
	guest.PowerOff()
}
