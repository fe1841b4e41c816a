// Test program concurrency: goroutines, channels, WaitGroup, Mutex, select.
package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL concurrency: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	pingPong()
	bufferedProducers()
	mutexCounter()
	selectMany()
	onceBroadcast()
	fmt.Println("PASS concurrency")
}

// pingPong checks an unbuffered ping-pong of 1000 round trips.
func pingPong() {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	v := 0
	for i := 0; i < 1000; i++ {
		ping <- v
		v = <-pong
	}
	close(ping)
	if _, ok := <-pong; ok {
		fail("pong not closed")
	}
	if v != 1000 {
		fail("ping-pong: got %d, want 1000", v)
	}
	fmt.Println("unbuffered ping-pong ok:", v)
}

// bufferedProducers has 8 producers fill a buffered channel; every value arrives once.
func bufferedProducers() {
	buf := make(chan int, 64)
	var pwg sync.WaitGroup
	for p := 0; p < 8; p++ {
		pwg.Add(1)
		go func(p int) {
			defer pwg.Done()
			for i := 0; i < 100; i++ {
				buf <- p*100 + i
			}
		}(p)
	}
	go func() { pwg.Wait(); close(buf) }()
	seen := make([]bool, 800)
	count := 0
	for x := range buf {
		if x < 0 || x >= 800 || seen[x] {
			fail("buffered: bad or duplicate value %d", x)
		}
		seen[x] = true
		count++
	}
	if count != 800 {
		fail("buffered: got %d values, want 800", count)
	}
	fmt.Println("buffered producers ok:", count)
}

// mutexCounter has 16 goroutines count to 1000 each under one Mutex.
func mutexCounter() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	counter := 0
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				mu.Lock()
				counter++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if counter != 16000 {
		fail("mutex counter = %d, want 16000", counter)
	}
	fmt.Println("mutex counter ok:", counter)
}

// selectMany selects over three channels, then a non-blocking select.
func selectMany() {
	a, b, c := make(chan string), make(chan string), make(chan string)
	done := make(chan struct{})
	go func() {
		for i := 0; i < 10; i++ {
			a <- "a"
		}
	}()
	go func() {
		for i := 0; i < 10; i++ {
			b <- "b"
		}
	}()
	go func() {
		for i := 0; i < 10; i++ {
			c <- "c"
		}
		close(done)
	}()
	got := map[string]int{}
	timeout := time.After(30 * time.Second)
	for n := 0; n < 30; n++ {
		select {
		case s := <-a:
			got[s]++
		case s := <-b:
			got[s]++
		case s := <-c:
			got[s]++
		case <-timeout:
			fail("select timed out after %d receives", n)
		}
	}
	<-done
	if got["a"] != 10 || got["b"] != 10 || got["c"] != 10 {
		fail("select counts = %v", got)
	}
	// Non-blocking select with default.
	select {
	case <-a:
		fail("receive from an idle channel")
	default:
	}
	fmt.Println("select ok:", got["a"], got["b"], got["c"])
}

// onceBroadcast releases 8 goroutines at once with a close; their sync.Once
// runs once.
func onceBroadcast() {
	var once sync.Once
	start := make(chan struct{})
	var owg sync.WaitGroup
	calls := 0
	for i := 0; i < 8; i++ {
		owg.Add(1)
		go func() {
			defer owg.Done()
			<-start
			once.Do(func() { calls++ })
		}()
	}
	close(start)
	owg.Wait()
	if calls != 1 {
		fail("sync.Once ran %d times", calls)
	}
	fmt.Println("once ok")
}
