// SO_RCVTIMEO and SO_SNDTIMEO on blocking sockets: a receive, an accept
// and a send that cannot finish give up with EAGAIN once the time is up
// (the phase only checks that they returned, not how long they took).
package main

import (
	"errors"
	"fmt"
	"syscall"
)

// blocking makes a socket with a blocking descriptor (the Go runtime's
// own sockets are non-blocking and never wait in the kernel).
func blocking(domain, typ int) int {
	fd, err := syscall.Socket(domain, typ, 0)
	check("socket", err)
	return fd
}

func setTimeo(fd, opt int) {
	tv := syscall.Timeval{Sec: 0, Usec: 200_000}
	check("set timeout", syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, &tv))
}

func wantEAGAIN(what string, err error) {
	if !errors.Is(err, syscall.EAGAIN) {
		fail("%s with a timeout: %v, want EAGAIN", what, err)
	}
}

func timeouts() {
	buf := make([]byte, 64)
	// UDP: nothing arrives.
	u := blocking(syscall.AF_INET, syscall.SOCK_DGRAM)
	check("bind udp", syscall.Bind(u, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	setTimeo(u, syscall.SO_RCVTIMEO)
	_, _, err := syscall.Recvfrom(u, buf, 0)
	wantEAGAIN("udp recvfrom", err)
	// A bad timeval is EDOM; the old value stays.
	bad := syscall.Timeval{Sec: 1, Usec: 1_000_000}
	if err := syscall.SetsockoptTimeval(u, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &bad); !errors.Is(err, syscall.EDOM) {
		fail("SO_RCVTIMEO with 1000000 µs: %v, want EDOM", err)
	}
	syscall.Close(u)

	// TCP: accept with nobody connecting, then a read with nothing sent.
	l := blocking(syscall.AF_INET, syscall.SOCK_STREAM)
	check("bind tcp", syscall.Bind(l, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	check("listen", syscall.Listen(l, 8))
	setTimeo(l, syscall.SO_RCVTIMEO)
	_, _, err = syscall.Accept(l)
	wantEAGAIN("accept", err)
	sa, err := syscall.Getsockname(l)
	check("getsockname", err)
	c := blocking(syscall.AF_INET, syscall.SOCK_STREAM)
	check("connect", syscall.Connect(c, sa))
	a, _, err := syscall.Accept(l)
	check("accept", err)
	setTimeo(c, syscall.SO_RCVTIMEO)
	_, err = syscall.Read(c, buf)
	wantEAGAIN("tcp read", err)
	// The accepted socket took the listener's timeout (Linux copies it).
	_, err = syscall.Read(a, buf)
	wantEAGAIN("read on the accepted socket", err)
	for _, fd := range []int{a, c, l} {
		syscall.Close(fd)
	}

	// AF_UNIX stream: a send into a full buffer, and a read.
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	check("socketpair", err)
	setTimeo(fds[0], syscall.SO_SNDTIMEO)
	setTimeo(fds[1], syscall.SO_RCVTIMEO)
	_, err = syscall.Read(fds[1], buf)
	wantEAGAIN("unix read", err)
	chunk := make([]byte, 64<<10)
	for sent := 0; ; {
		n, err := syscall.Write(fds[0], chunk)
		if err != nil {
			wantEAGAIN("unix write into a full buffer", err)
			break
		}
		if sent += n; sent > 64<<20 {
			fail("unix stream took %d bytes nobody read", sent)
		}
	}
	syscall.Close(fds[0])
	syscall.Close(fds[1])
	fmt.Println("timeo: recv, accept, read and send time out with EAGAIN; EDOM ok")
}
