// Command waitall checks recv's MSG_WAITALL on stream sockets, over
// loopback TCP and AF_UNIX stream with a peer in this program, or with
// an argument HOST:PORT over a TCP connection to it through the network
// device (TestNetWaitAll, the peer on the host). The peer
// (tests/internal/trickle) sends in small pieces with pauses; on a
// blocking socket:
//
//   - recvfrom(MSG_WAITALL) of the whole first part returns all of it at
//     once, every byte in place;
//   - with SO_RCVTIMEO 300 ms, recvmsg(MSG_WAITALL) of more than the peer
//     then sends returns what came when the timeout expires (not EAGAIN);
//   - recvmsg(MSG_WAITALL) of more than the rest returns the rest at the
//     peer's end of file, and the next recvfrom returns 0.
//
// The same checks pass on Linux (run it there without arguments).
package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"gometal.dev/gometal/tests/internal/bytepattern"
	"gometal.dev/gometal/tests/internal/trickle"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL waitall: "+format+"\n", args...)
	os.Exit(1)
}

// expect checks that b is the stream's bytes from offset off.
func expect(what string, b []byte, off int) {
	want := make([]byte, len(b))
	bytepattern.Fill(want, trickle.Seed, uint64(off))
	if !bytes.Equal(b, want) {
		fail("%s: wrong bytes", what)
	}
}

// check runs the checks on connected blocking socket fd.
func check(name string, fd int) {
	defer syscall.Close(fd)
	buf := make([]byte, 16<<10+trickle.Whole)
	n, _, err := syscall.Recvfrom(fd, buf[:trickle.Whole], syscall.MSG_WAITALL)
	if err != nil || n != trickle.Whole {
		fail("%s: recvfrom(MSG_WAITALL) of %d: %d, %v", name, trickle.Whole, n, err)
	}
	expect(name+": the whole", buf[:n], 0)

	tv := syscall.Timeval{Usec: 300_000}
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		fail("%s: SO_RCVTIMEO: %v", name, err)
	}
	syscall.Write(fd, []byte("t"))
	start := time.Now()
	n, _, _, _, err = syscall.Recvmsg(fd, buf[:1000], nil, syscall.MSG_WAITALL)
	if err != nil || n != trickle.Short || time.Since(start) < 250*time.Millisecond {
		fail("%s: recvmsg(MSG_WAITALL) with SO_RCVTIMEO: %d, %v after %v; want %d after 300ms", name, n, err, time.Since(start), trickle.Short)
	}
	expect(name+": the short part", buf[:n], trickle.Whole)

	tv = syscall.Timeval{}
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	syscall.Write(fd, []byte("e"))
	n, _, _, _, err = syscall.Recvmsg(fd, buf[:10000], nil, syscall.MSG_WAITALL)
	if err != nil || n != trickle.Last {
		fail("%s: recvmsg(MSG_WAITALL) of 10000 before end of file: %d, %v; want %d", name, n, err, trickle.Last)
	}
	expect(name+": the last part", buf[:n], trickle.Whole+trickle.Short)
	if n, _, err = syscall.Recvfrom(fd, buf, syscall.MSG_WAITALL); n != 0 || err != nil {
		fail("%s: at end of file: %d, %v; want 0", name, n, err)
	}
	fmt.Printf("waitall: %s ok\n", name)
}

// local serves one connection of ln with the peer and connects to it
// (blocking) with a socket of `family` at sa.
func local(name string, ln net.Listener, family int, sa syscall.Sockaddr) {
	go func() {
		c, err := ln.Accept()
		if err != nil {
			fail("%s: accept: %v", name, err)
		}
		if err := trickle.Serve(c); err != nil {
			fail("%s: the peer: %v", name, err)
		}
	}()
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM, 0)
	if err != nil {
		fail("%s: socket: %v", name, err)
	}
	if err := syscall.Connect(fd, sa); err != nil {
		fail("%s: connect: %v", name, err)
	}
	check(name, fd)
	ln.Close()
}

func main() {
	if len(os.Args) == 2 {
		host, port, err := net.SplitHostPort(os.Args[1])
		p, _ := strconv.Atoi(port)
		ip := net.ParseIP(host).To4()
		if err != nil || ip == nil {
			fail("usage: waitall [IPV4:PORT]")
		}
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err == nil {
			err = syscall.Connect(fd, &syscall.SockaddrInet4{Port: p, Addr: [4]byte(ip)})
		}
		if err != nil {
			fail("connect to %s: %v", os.Args[1], err)
		}
		check("device TCP", fd)
		fmt.Println("PASS waitall")
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail("listen: %v", err)
	}
	local("loopback TCP", ln, syscall.AF_INET, &syscall.SockaddrInet4{Port: ln.Addr().(*net.TCPAddr).Port, Addr: [4]byte{127, 0, 0, 1}})
	name := fmt.Sprintf("@waitall-%d", os.Getpid())
	if ln, err = net.Listen("unix", name); err != nil {
		fail("listen: %v", err)
	}
	local("unix stream", ln, syscall.AF_UNIX, &syscall.SockaddrUnix{Name: name})
	fmt.Println("PASS waitall")
}
