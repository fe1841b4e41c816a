// Test program epollsem: epoll's reporting semantics from raw system calls,
// the behaviour the kernel's per-instance ready lists must keep:
//
//   - level: a level-triggered watch is reported at every wait while its
//     file stays ready, and no more once it is drained.
//   - edge: an edge-triggered watch is reported once per change.
//   - oneshot: EPOLLONESHOT reports once, then nothing until EPOLL_CTL_MOD
//     re-arms it (which reports a still-ready file at once).
//   - exclusive: EPOLLEXCLUSIVE is accepted with ADD and reports as usual;
//     MOD of such a watch, and EXCLUSIVE with ONESHOT, are EINVAL.
//   - many: 1,000 watched pipes of which 3 are ready: exactly those 3 are
//     reported, with their data.
//   - closed: a watched file closed (without EPOLL_CTL_DEL) while on the
//     ready list is not reported, and its descriptor number can be added
//     again.
//   - two: one pipe in two epoll instances (level in one, edge in the
//     other) is reported by both.
//   - blocked: a thread blocked in epoll_wait is woken by a write from
//     another thread; eventfd edge-triggered, once per write.
//   - socket: a TCP socket watched before it connects reports the peer's
//     data after the connection is made.
//
// epollsem prints "PASS epollsem" when every phase held.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"
)

const (
	epollET        = 1 << 31
	epollOneShot   = 1 << 30
	epollExclusive = 1 << 28
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL epollsem: "+format+"\n", a...)
	os.Exit(1)
}

func check(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func newEpoll() int {
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	check(err, "epoll_create1")
	return ep
}

func add(ep, fd int, events uint32, data int32) {
	ev := syscall.EpollEvent{Events: events, Fd: data}
	check(syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, fd, &ev), fmt.Sprintf("EPOLL_CTL_ADD fd %d", fd))
}

func newPipe() (r, w int) {
	var p [2]int
	check(syscall.Pipe2(p[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC), "pipe2")
	return p[0], p[1]
}

// wait returns the data fields of the events of one wait, keyed to events.
func wait(ep int, timeoutMs int) map[int32]uint32 {
	evs := make([]syscall.EpollEvent, 64)
	for {
		n, err := syscall.EpollWait(ep, evs, timeoutMs)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		check(err, "epoll_wait")
		got := map[int32]uint32{}
		for _, e := range evs[:n] {
			if _, dup := got[e.Fd]; dup {
				fail("data %d reported twice in one wait", e.Fd)
			}
			got[e.Fd] = e.Events
		}
		return got
	}
}

func expect(phase string, got map[int32]uint32, want ...int32) {
	if len(got) != len(want) {
		fail("%s: got %v, want data %v", phase, got, want)
	}
	for _, w := range want {
		if _, ok := got[w]; !ok {
			fail("%s: got %v, want data %v", phase, got, want)
		}
	}
}

func write(fd int, s string) {
	_, err := syscall.Write(fd, []byte(s))
	check(err, "write")
}

func drain(fd int) {
	buf := make([]byte, 4096)
	for {
		if _, err := syscall.Read(fd, buf); err != nil {
			return
		}
	}
}

func level() {
	ep := newEpoll()
	r, w := newPipe()
	add(ep, r, syscall.EPOLLIN, 1)
	expect("level: empty", wait(ep, 0))
	write(w, "x")
	expect("level: first", wait(ep, 0), 1)
	expect("level: again while ready", wait(ep, 0), 1)
	drain(r)
	expect("level: drained", wait(ep, 0))
	closeAll(ep, r, w)
}

func edge() {
	ep := newEpoll()
	r, w := newPipe()
	add(ep, r, syscall.EPOLLIN|epollET, 1)
	write(w, "x")
	expect("edge: first", wait(ep, 0), 1)
	expect("edge: no new change", wait(ep, 0))
	write(w, "y")
	expect("edge: second write", wait(ep, 0), 1)
	expect("edge: quiet again", wait(ep, 0))
	closeAll(ep, r, w)
}

func oneshot() {
	ep := newEpoll()
	r, w := newPipe()
	add(ep, r, syscall.EPOLLIN|epollOneShot, 1)
	write(w, "x")
	expect("oneshot: first", wait(ep, 0), 1)
	write(w, "y")
	expect("oneshot: disabled", wait(ep, 0))
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | epollOneShot, Fd: 2}
	check(syscall.EpollCtl(ep, syscall.EPOLL_CTL_MOD, r, &ev), "EPOLL_CTL_MOD")
	expect("oneshot: re-armed", wait(ep, 0), 2)
	expect("oneshot: disabled again", wait(ep, 0))
	closeAll(ep, r, w)
}

func exclusive() {
	ep := newEpoll()
	r, w := newPipe()
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | epollExclusive | epollOneShot, Fd: 1}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, r, &ev); err != syscall.EINVAL {
		fail("exclusive: ADD with ONESHOT: %v, want EINVAL", err)
	}
	add(ep, r, syscall.EPOLLIN|epollExclusive, 1)
	write(w, "x")
	expect("exclusive: ready", wait(ep, 0), 1)
	ev = syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: 1}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_MOD, r, &ev); err != syscall.EINVAL {
		fail("exclusive: MOD: %v, want EINVAL", err)
	}
	closeAll(ep, r, w)
}

func many() {
	const n = 1000
	ep := newEpoll()
	rs, ws := make([]int, n), make([]int, n)
	for i := range rs {
		rs[i], ws[i] = newPipe()
		add(ep, rs[i], syscall.EPOLLIN|epollET, int32(i))
	}
	expect("many: none ready", wait(ep, 0))
	for _, i := range []int{7, 500, 999} {
		write(ws[i], "x")
	}
	expect("many: three ready", wait(ep, 0), 7, 500, 999)
	expect("many: quiet", wait(ep, 0))
	write(ws[0], "x")
	expect("many: one more", wait(ep, 0), 0)
	closeAll(append(append([]int{ep}, rs...), ws...)...)
	fmt.Printf("epollsem: many: %d watched, 3 ready reported\n", n)
}

func closed() {
	ep := newEpoll()
	r, w := newPipe()
	r2, w2 := newPipe()
	add(ep, r, syscall.EPOLLIN, 1)
	add(ep, r2, syscall.EPOLLIN, 2)
	write(w, "x")
	write(w2, "x")
	// Both are on the ready list now; close one without EPOLL_CTL_DEL.
	closeAll(r, w)
	expect("closed: only the open one", wait(ep, 0), 2)
	r3, w3 := newPipe()
	if r3 != r {
		// The number was reused by the write end: use whichever got it.
		r3, w3 = w3, r3
	}
	if r3 == r {
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLOUT, Fd: 3}
		check(syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, r3, &ev), "closed: ADD of the reused number")
	}
	closeAll(ep, r2, w2, r3, w3)
}

func two() {
	ep1, ep2 := newEpoll(), newEpoll()
	r, w := newPipe()
	add(ep1, r, syscall.EPOLLIN, 1)
	add(ep2, r, syscall.EPOLLIN|epollET, 2)
	write(w, "x")
	expect("two: first instance", wait(ep1, 0), 1)
	expect("two: second instance", wait(ep2, 0), 2)
	expect("two: first again (level)", wait(ep1, 0), 1)
	expect("two: second quiet (edge)", wait(ep2, 0))
	check(syscall.EpollCtl(ep1, syscall.EPOLL_CTL_DEL, r, nil), "EPOLL_CTL_DEL")
	write(w, "y")
	expect("two: first removed", wait(ep1, 0))
	expect("two: second still watches", wait(ep2, 0), 2)
	closeAll(ep1, ep2, r, w)
}

func blocked() {
	ep := newEpoll()
	efd, _, errno := syscall.Syscall(syscall.SYS_EVENTFD2, 0, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		fail("eventfd2: %v", errno)
	}
	add(ep, int(efd), syscall.EPOLLIN|epollET, 9)
	one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	for round := 0; round < 20; round++ {
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			time.Sleep(2 * time.Millisecond)
			if _, err := syscall.Write(int(efd), one); err != nil {
				fail("blocked: eventfd write: %v", err)
			}
			close(done)
		}()
		// Wait for up to a minute: the write comes long before.
		expect(fmt.Sprintf("blocked: round %d", round), wait(ep, 60_000), 9)
		<-done
	}
	closeAll(ep, int(efd))
}

func socket() {
	ln, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	check(err, "socket")
	check(syscall.Bind(ln, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}), "bind")
	check(syscall.Listen(ln, 8), "listen")
	sa, err := syscall.Getsockname(ln)
	check(err, "getsockname")
	c, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	check(err, "socket")
	ep := newEpoll()
	add(ep, c, syscall.EPOLLIN|syscall.EPOLLRDHUP|epollET, 1)
	wait(ep, 0) // an unconnected socket reports a hangup; not the point here
	if err := syscall.Connect(c, sa); err != nil && err != syscall.EINPROGRESS {
		fail("connect: %v", err)
	}
	s, _, err := syscall.Accept4(ln, syscall.SOCK_CLOEXEC)
	check(err, "accept")
	wait(ep, 0)
	write(s, "hello")
	got := wait(ep, 60_000)
	if got[1]&syscall.EPOLLIN == 0 {
		fail("socket: peer's data not reported: %v", got)
	}
	closeAll(s, c, ln, ep)
}

func closeAll(fds ...int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

func main() {
	for _, p := range []struct {
		name string
		f    func()
	}{{"level", level}, {"edge", edge}, {"oneshot", oneshot}, {"exclusive", exclusive}, {"many", many},
		{"closed", closed}, {"two", two}, {"blocked", blocked}, {"socket", socket}} {
		p.f()
		fmt.Printf("epollsem: %s ok\n", p.name)
	}
	fmt.Println("PASS epollsem")
}
