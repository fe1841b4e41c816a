// Test program timers: sleeps, timers, tickers, AfterFunc, context deadlines,
// monotonic and wall-clock time. Upper bounds are generous on purpose:
// emulation is slow, and timing assertions do not belong in tests.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"
)

const slack = 2 * time.Second

func fail(format string, a ...any) {
	fmt.Printf("FAIL timers: "+format+"\n", a...)
	os.Exit(1)
}

func within(what string, d, lo, hi time.Duration) {
	fmt.Printf("%s: %v\n", what, d.Round(time.Millisecond))
	if d < lo || d > hi {
		fail("%s took %v, want within [%v, %v]", what, d, lo, hi)
	}
}

// rawRealtime reads CLOCK_REALTIME with the system call itself; time.Now
// reads it through the vDSO when the kernel provides one. Both must agree.
func rawRealtime() time.Time {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 0, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		fmt.Println("FAIL timers: clock_gettime:", e)
		os.Exit(1)
	}
	return time.Unix(ts.Unix())
}

func main() {
	// The vDSO clock and the system call agree.
	before := time.Now()
	raw := rawRealtime()
	after := time.Now()
	if raw.Before(before.Add(-time.Millisecond)) || raw.After(after.Add(time.Millisecond)) {
		fmt.Printf("FAIL timers: syscall realtime %v outside vDSO readings [%v, %v]\n", raw, before, after)
		os.Exit(1)
	}
	fmt.Println("vdso and syscall clocks agree")

	// time.Sleep.
	t0 := time.Now()
	time.Sleep(50 * time.Millisecond)
	within("sleep 50ms", time.Since(t0), 50*time.Millisecond, slack)

	// time.After.
	t0 = time.Now()
	<-time.After(30 * time.Millisecond)
	within("time.After 30ms", time.Since(t0), 30*time.Millisecond, slack)

	// time.Ticker, 5 ticks at 20ms.
	t0 = time.Now()
	tk := time.NewTicker(20 * time.Millisecond)
	for i := 0; i < 5; i++ {
		select {
		case <-tk.C:
		case <-time.After(10 * time.Second):
			fail("ticker tick %d never came", i)
		}
	}
	tk.Stop()
	within("5 ticks of 20ms", time.Since(t0), 100*time.Millisecond, 5*slack)

	// time.AfterFunc.
	t0 = time.Now()
	fired := make(chan time.Duration, 1)
	time.AfterFunc(25*time.Millisecond, func() { fired <- time.Since(t0) })
	select {
	case d := <-fired:
		within("AfterFunc 25ms", d, 25*time.Millisecond, slack)
	case <-time.After(10 * time.Second):
		fail("AfterFunc never fired")
	}

	// A stopped timer must not fire.
	stopped := time.NewTimer(10 * time.Millisecond)
	if !stopped.Stop() {
		fail("Timer.Stop returned false on an active timer")
	}

	// context.WithTimeout.
	t0 = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Millisecond)
	defer cancel()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		fail("context deadline never expired")
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		fail("ctx.Err() = %v, want DeadlineExceeded", ctx.Err())
	}
	within("context timeout 40ms", time.Since(t0), 40*time.Millisecond, slack)

	// Monotonic time never goes backwards.
	prev := time.Now()
	for i := 0; i < 1000; i++ {
		now := time.Now()
		if now.Sub(prev) < 0 {
			fail("monotonic time went backwards at reading %d: %v", i, now.Sub(prev))
		}
		prev = now
	}
	fmt.Println("monotonic: 1000 readings, never backwards")

	// Wall-clock time comes from the RTC.
	now := time.Now().UTC()
	fmt.Println("wall clock:", now.Format(time.RFC3339))
	if now.Year() < 2024 {
		fail("time.Now().Year() = %d, want >= 2024 (is the RTC read?)", now.Year())
	}
	fmt.Println("PASS timers")
}
