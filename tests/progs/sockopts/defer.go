package main

import (
	"context"
	"fmt"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// deferAccept: a listener that sets TCP_DEFER_ACCEPT (1 s, and a BPF
// filter, as servers do in their Control function) starts; a connection
// that sends at once is accepted at once, before one that stays silent,
// which is accepted only after the deferral (about 1 s), without data.
func deferAccept() {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT, 1)
			if serr == nil {
				serr = attach(int(fd), assemble(keepK))
			}
		})
		return serr
	}}
	ln, err := lc.Listen(context.Background(), "tcp4", "127.0.0.1:0")
	must(err, "listen with TCP_DEFER_ACCEPT and SO_ATTACH_FILTER")
	defer ln.Close()
	start := time.Now()
	silent, err := net.Dial("tcp4", ln.Addr().String())
	must(err, "dial (silent)")
	defer silent.Close()
	talker, err := net.Dial("tcp4", ln.Addr().String())
	must(err, "dial (talker)")
	defer talker.Close()
	time.Sleep(100 * time.Millisecond)
	_, err = talker.Write([]byte("hello"))
	must(err, "write")

	first, err := ln.Accept()
	must(err, "first accept")
	took := time.Since(start)
	buf := make([]byte, 16)
	first.SetReadDeadline(time.Now().Add(time.Second))
	n, err := first.Read(buf)
	if err != nil || string(buf[:n]) != "hello" || took > 800*time.Millisecond {
		fail("defer accept: first accepted after %v read %q (%v), want the talker's hello before the deferral ends", took, buf[:n], err)
	}
	first.Close()
	second, err := ln.Accept()
	must(err, "second accept")
	took = time.Since(start)
	defer second.Close()
	if took < 900*time.Millisecond || took > 5*time.Second {
		fail("defer accept: the silent connection was accepted after %v, want about 1 s", took)
	}
	second.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, err := second.Read(buf); n != 0 || err == nil {
		fail("defer accept: the silent connection had %d bytes (%v)", n, err)
	}
	// Accepted sockets keep the filter (Linux shares it) but not the deferral.
	rc, _ := second.(*net.TCPConn).SyscallConn()
	rc.Control(func(fd uintptr) {
		if v, _ := unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT); v != 0 {
			fail("an accepted socket reads TCP_DEFER_ACCEPT %d, want 0", v)
		}
		if n, err := getFilter(int(fd), nil); err != nil || n != len(keepK) {
			fail("an accepted socket's SO_GET_FILTER count: %d (%v), want %d", n, err, len(keepK))
		}
	})
	fmt.Printf("sockopts: TCP_DEFER_ACCEPT: data accepted at once, silence after %v\n", took.Round(100*time.Millisecond))
}
