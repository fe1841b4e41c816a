// Test program arith: MultiGo's simple_arithmetic benchmark as a test. G
// goroutines (more than harts) each add up a fixed series in a register-only
// loop into a local and send the sum on a channel; main checks every sum and
// the total exactly. With SMP scheduling the goroutines run on all harts at
// once; a lost register, a torn FP/integer context across a migration or a
// preemption in the middle of the loop shows up as a wrong sum.
//
//	arith [goroutines [iterations]]   (defaults 16 and 5,000,000)
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL arith: "+format+"\n", a...)
	os.Exit(1)
}

type result struct {
	id       int
	sum      uint64
	fsum     float64
	duration time.Duration
}

// work adds i*k+id (mod 2^64) for i in [0, n) and a float series that is
// exact in float64 (small integers), so both integer and FP registers matter.
func work(id int, n uint64, k uint64) (uint64, float64) {
	var s uint64
	var f float64
	for i := uint64(0); i < n; i++ {
		s += i*k + uint64(id)
		f += float64(i & 7)
	}
	return s, f
}

// want is the closed form of work's sums.
func want(id int, n uint64, k uint64) (uint64, float64) {
	// sum_{i<n} i = n(n-1)/2 (exact for the n used here; wraps mod 2^64 like work).
	tri := n * (n - 1) / 2
	s := tri*k + n*uint64(id)
	// i&7 cycles 0..7 (sum 28) n/8 times, then 0..(n%8-1).
	r := n % 8
	f := float64(n/8)*28 + float64(r*(r-1)/2)
	return s, f
}

func main() {
	g, n := 16, uint64(5_000_000)
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil || v < 1 {
			fail("bad goroutine count %q", os.Args[1])
		}
		g = v
	}
	if len(os.Args) > 2 {
		v, err := strconv.ParseUint(os.Args[2], 10, 64)
		if err != nil || v < 1 {
			fail("bad iteration count %q", os.Args[2])
		}
		n = v
	}
	t0 := time.Now()
	ch := make(chan result)
	for id := 0; id < g; id++ {
		go func() {
			t := time.Now()
			s, f := work(id, n, uint64(id)+3)
			ch <- result{id, s, f, time.Since(t)}
		}()
	}
	seen := make([]bool, g)
	var total, wantTotal uint64
	for k := 0; k < g; k++ {
		r := <-ch
		if r.id < 0 || r.id >= g || seen[r.id] {
			fail("bad or duplicate result id %d", r.id)
		}
		seen[r.id] = true
		ws, wf := want(r.id, n, uint64(r.id)+3)
		if r.sum != ws {
			fail("goroutine %d: integer sum %d, want %d", r.id, r.sum, ws)
		}
		if r.fsum != wf {
			fail("goroutine %d: float sum %v, want %v", r.id, r.fsum, wf)
		}
		total += r.sum
		wantTotal += ws
	}
	if total != wantTotal {
		fail("total %d, want %d", total, wantTotal)
	}
	fmt.Printf("arith: %d goroutines x %d additions, total %d, %v\n", g, n, total, time.Since(t0).Round(time.Millisecond))
	fmt.Println("PASS arith")
}
