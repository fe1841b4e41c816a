// Test program blockwake: goroutines that block and are woken, many at a
// time, through every common path: a ring of goroutines passing tokens over
// unbuffered channels, sync.Cond with Signal and Broadcast (predicate
// loops), time.Sleep in many goroutines at once (each must sleep at least
// its duration), and sync.WaitGroup. With threads on several harts, a lost
// wakeup (futex wake racing with futex wait on another hart) shows up here
// as a hang, and a spurious or early one as a wrong result.
package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL blockwake: "+format+"\n", a...)
	os.Exit(1)
}

// watchdog fails the program (rather than letting the harness time out) if a
// phase takes far too long, naming the phase.
func watchdog(phase string, d time.Duration) func() {
	t := time.AfterFunc(d, func() { fail("%s: no progress after %v (lost wakeup?)", phase, d) })
	return func() { t.Stop() }
}

// ring: a ring of n stages joined by unbuffered channels (main injects into
// stage 1 and a collector drains stage 0); each hop adds the stage's index.
func ring(n, tokens int) {
	defer watchdog("ring", 60*time.Second)()
	chans := make([]chan int, n)
	for i := range chans {
		chans[i] = make(chan int)
	}
	var wg sync.WaitGroup
	for i := 1; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in, out := chans[i], chans[(i+1)%n]
			for v := range in {
				out <- v + i
			}
			close(out)
		}()
	}
	// Goroutine 0 is main: it injects the tokens and takes them back.
	done := make(chan []int)
	go func() {
		var got []int
		for v := range chans[0] {
			got = append(got, v)
		}
		done <- got
	}()
	// Many tokens are in flight at once, one per stage at most.
	for t := 0; t < tokens; t++ {
		chans[1] <- t * 1000000
	}
	close(chans[1])
	got := <-done
	wg.Wait()
	if len(got) != tokens {
		fail("ring: %d tokens came back, want %d", len(got), tokens)
	}
	hop := (n - 1) * n / 2 // 1 + 2 + ... + (n-1)
	for i, v := range got {
		// Channels are FIFO and each stage is one goroutine: order is kept.
		if v != i*1000000+hop {
			fail("ring: token %d came back as %d, want %d", i, v, i*1000000+hop)
		}
	}
	fmt.Printf("ring: %d goroutines, %d tokens ok\n", n, tokens)
}

// pingpong: pairs of goroutines bouncing a counter over unbuffered channels.
func pingpong(pairs, rounds int) {
	defer watchdog("pingpong", 60*time.Second)()
	var wg sync.WaitGroup
	results := make([]int, pairs)
	for p := 0; p < pairs; p++ {
		a, b := make(chan int), make(chan int)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for v := range a {
				b <- v + 1
			}
			close(b)
		}()
		go func() {
			defer wg.Done()
			v := 0
			for i := 0; i < rounds; i++ {
				a <- v
				v = <-b
			}
			close(a)
			if _, ok := <-b; ok {
				fail("pingpong %d: channel not closed", p)
			}
			results[p] = v
		}()
	}
	wg.Wait()
	for p, v := range results {
		if v != rounds {
			fail("pingpong %d: counter %d, want %d", p, v, rounds)
		}
	}
	fmt.Printf("pingpong: %d pairs x %d rounds ok\n", pairs, rounds)
}

// cond: a bounded queue with a sync.Cond: producers wait for room
// (Signal), consumers wait for items, and a gate opened by Broadcast.
func cond(producers, consumers, items int) {
	defer watchdog("cond", 60*time.Second)()
	var mu sync.Mutex
	notFull, notEmpty := sync.NewCond(&mu), sync.NewCond(&mu)
	const capacity = 4
	var queue []int
	produced := 0
	closed := false

	// Gate: everybody waits until Broadcast opens it.
	gateCond := sync.NewCond(&mu)
	open := false
	waiting := 0

	var pwg, cwg sync.WaitGroup
	sums := make([]int, consumers)
	counts := make([]int, consumers)
	for p := 0; p < producers; p++ {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			mu.Lock()
			waiting++
			for !open {
				gateCond.Wait()
			}
			mu.Unlock()
			for i := 0; i < items; i++ {
				mu.Lock()
				for len(queue) >= capacity {
					notFull.Wait()
				}
				queue = append(queue, p*items+i)
				produced++
				notEmpty.Signal()
				mu.Unlock()
			}
		}()
	}
	for c := 0; c < consumers; c++ {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			mu.Lock()
			waiting++
			for !open {
				gateCond.Wait()
			}
			for {
				for len(queue) == 0 && !closed {
					notEmpty.Wait()
				}
				if len(queue) == 0 && closed {
					mu.Unlock()
					return
				}
				v := queue[0]
				queue = queue[1:]
				sums[c] += v
				counts[c]++
				notFull.Signal()
				mu.Unlock()
				mu.Lock()
			}
		}()
	}
	// Open the gate once everybody is waiting at it.
	for {
		mu.Lock()
		if waiting == producers+consumers {
			open = true
			gateCond.Broadcast()
			mu.Unlock()
			break
		}
		mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	pwg.Wait()
	mu.Lock()
	closed = true
	notEmpty.Broadcast()
	mu.Unlock()
	cwg.Wait()

	n, sum := 0, 0
	for c := range sums {
		n += counts[c]
		sum += sums[c]
	}
	total := producers * items
	if produced != total || n != total {
		fail("cond: produced %d, consumed %d, want %d", produced, n, total)
	}
	if want := total * (total - 1) / 2; sum != want {
		fail("cond: sum %d, want %d", sum, want)
	}
	fmt.Printf("cond: %d producers, %d consumers, %d items ok\n", producers, consumers, total)
}

// sleepers: many goroutines sleep different durations at once; each must
// sleep at least its duration, and all of them together must not take
// anywhere near the sum of the durations.
func sleepers(n int) {
	defer watchdog("sleepers", 60*time.Second)()
	var wg sync.WaitGroup
	short := make([]time.Duration, n)
	t0 := time.Now()
	var longest time.Duration
	for i := 0; i < n; i++ {
		d := time.Duration(1+i%25) * 2 * time.Millisecond
		if d > longest {
			longest = d
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 3; r++ {
				t := time.Now()
				time.Sleep(d)
				if got := time.Since(t); got < d {
					short[i] = got
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	for i, s := range short {
		if s != 0 {
			fail("sleepers: goroutine %d slept %v, asked for %v", i, s, time.Duration(1+i%25)*2*time.Millisecond)
		}
	}
	// 3 rounds of the longest sleep is 150 ms; sequential would be
	// n*3*avg, far more. Allow a lot of slack for a loaded emulator.
	if elapsed > 20*time.Second {
		fail("sleepers: %d concurrent sleeps took %v", n, elapsed)
	}
	fmt.Printf("sleepers: %d goroutines x 3 sleeps (up to %v) ok in %v\n", n, longest, elapsed.Round(time.Millisecond))
}

func main() {
	t0 := time.Now()
	ring(64, 200)
	pingpong(16, 300)
	cond(8, 8, 300)
	sleepers(200)

	// Everything at once.
	var wg sync.WaitGroup
	for _, f := range []func(){
		func() { pingpong(8, 200) },
		func() { cond(4, 4, 200) },
		func() { sleepers(50) },
		func() { ring(16, 100) },
	} {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
	fmt.Printf("blockwake: all phases in %v\n", time.Since(t0).Round(time.Millisecond))
	fmt.Println("PASS blockwake")
}
