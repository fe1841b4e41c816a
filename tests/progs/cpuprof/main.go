// Test program cpuprof: CPU-time clocks count time spent running, not
// time asleep; setitimer, getitimer and POSIX timers fire; and a
// runtime/pprof CPU profile of a busy function has samples (printed in
// base64 between "profile:" and "end profile" for the host test to read
// with go tool pprof). `cpuprof profile` makes the profile only.
package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"
	"unsafe"
)

const (
	clockProcessCPU = 2
	clockThreadCPU  = 3
	sysTimerCreate  = 107
	sysTimerGettime = 108
	sysTimerSettime = 110
	sysTimerDelete  = 111
	sysGetitimer    = 102
	sysSetitimer    = 103
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL cpuprof: "+format+"\n", args...)
	os.Exit(1)
}

func cpuClock(id int) time.Duration {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, uintptr(id), uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		fail("clock_gettime(%d): %v", id, e)
	}
	return time.Duration(ts.Nano())
}

var sink uint64

// hot is the busy function the profile must find.
//
//go:noinline
func hot(d time.Duration) {
	end := time.Now().Add(d)
	x := uint64(1)
	for time.Now().Before(end) {
		for i := 0; i < 10000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink += x
}

// clocks: a thread asleep is not charged; a thread busy is.
func clocks() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := cpuClock(clockThreadCPU)
	time.Sleep(500 * time.Millisecond)
	slept := cpuClock(clockThreadCPU) - t0
	if slept > 100*time.Millisecond {
		fail("a thread asleep for 500ms was charged %v of CPU", slept)
	}
	p0, t1 := cpuClock(clockProcessCPU), cpuClock(clockThreadCPU)
	hot(300 * time.Millisecond)
	busy := cpuClock(clockThreadCPU) - t1
	pbusy := cpuClock(clockProcessCPU) - p0
	if busy < 200*time.Millisecond || busy > 2*time.Second {
		fail("a thread busy for 300ms was charged %v", busy)
	}
	if pbusy < busy {
		fail("process CPU time %v below the thread's %v", pbusy, busy)
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	if ut := time.Duration(ru.Utime.Nano()); ut < busy {
		fail("getrusage user time %v below the thread's CPU time %v", ut, busy)
	}
	fmt.Printf("clocks: asleep 500ms charged %v, busy 300ms charged %v (process %v)\n", slept, busy, pbusy)
}

type itimerval struct{ interval, value syscall.Timeval }
type itimerspec struct{ interval, value syscall.Timespec }

// timers: ITIMER_REAL gives SIGALRM, getitimer reports what is left, and
// a POSIX timer on the thread's CPU clock gives its signal.
func timers() {
	alrm := make(chan os.Signal, 1)
	signal.Notify(alrm, syscall.SIGALRM)
	it := itimerval{value: syscall.Timeval{Usec: 200000}}
	if _, _, e := syscall.Syscall(sysSetitimer, 0, uintptr(unsafe.Pointer(&it)), 0); e != 0 {
		fail("setitimer(ITIMER_REAL): %v", e)
	}
	var cur itimerval
	syscall.Syscall(sysGetitimer, 0, uintptr(unsafe.Pointer(&cur)), 0)
	if left := time.Duration(cur.value.Nano()); left <= 0 || left > 200*time.Millisecond {
		fail("getitimer(ITIMER_REAL) left %v, want (0, 200ms]", left)
	}
	select {
	case <-alrm:
	case <-time.After(5 * time.Second):
		fail("no SIGALRM from ITIMER_REAL")
	}
	signal.Stop(alrm)

	// A one-shot POSIX timer on this thread's CPU clock: 50ms of CPU.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	usr := make(chan os.Signal, 1)
	signal.Notify(usr, syscall.SIGUSR2)
	ev := struct {
		value        uint64
		signo, notif int32
		tid          int32
		_            [44]byte
	}{value: 7, signo: int32(syscall.SIGUSR2), notif: 4, tid: int32(syscall.Gettid())} // SIGEV_THREAD_ID
	var id int32
	if _, _, e := syscall.Syscall(sysTimerCreate, clockThreadCPU, uintptr(unsafe.Pointer(&ev)), uintptr(unsafe.Pointer(&id))); e != 0 {
		fail("timer_create(CLOCK_THREAD_CPUTIME_ID): %v", e)
	}
	spec := itimerspec{value: syscall.Timespec{Nsec: 50e6}}
	if _, _, e := syscall.Syscall6(sysTimerSettime, uintptr(id), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); e != 0 {
		fail("timer_settime: %v", e)
	}
	var got itimerspec
	syscall.Syscall(sysTimerGettime, uintptr(id), uintptr(unsafe.Pointer(&got)), 0)
	if left := time.Duration(got.value.Nano()); left <= 0 || left > 50*time.Millisecond {
		fail("timer_gettime left %v, want (0, 50ms]", left)
	}
	time.Sleep(200 * time.Millisecond) // asleep: the CPU clock stands still
	select {
	case <-usr:
		fail("the CPU-clock timer fired while its thread slept")
	default:
	}
	hot(150 * time.Millisecond)
	select {
	case <-usr:
	case <-time.After(5 * time.Second):
		fail("no SIGUSR2 from the CPU-clock timer after 150ms of CPU")
	}
	if _, _, e := syscall.Syscall(sysTimerDelete, uintptr(id), 0, 0); e != 0 {
		fail("timer_delete: %v", e)
	}
	if _, _, e := syscall.Syscall(sysTimerDelete, uintptr(id), 0, 0); e != syscall.EINVAL {
		fail("timer_delete of a deleted timer: %v, want EINVAL", e)
	}
	fmt.Println("timers: SIGALRM from ITIMER_REAL, SIGUSR2 from a thread CPU-clock timer")
}

func profile() {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		fail("StartCPUProfile: %v", err)
	}
	hot(1500 * time.Millisecond)
	pprof.StopCPUProfile()
	if buf.Len() < 200 {
		fail("CPU profile of %d bytes: no samples", buf.Len())
	}
	fmt.Printf("profile: %s\nend profile\n", base64.StdEncoding.EncodeToString(buf.Bytes()))
}

func main() {
	// "profile": the profile alone, which has no time bound to miss on a
	// loaded host (TestCheckedKernel boots it for the kernel's program
	// timers: the runtime's profiling timers).
	if len(os.Args) > 1 && os.Args[1] == "profile" {
		profile()
	} else {
		clocks()
		timers()
		profile()
	}
	fmt.Println("PASS cpuprof")
}
