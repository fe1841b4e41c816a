// Command netdevio checks a TCP connection through the network device with
// the raw system calls, now that read and write go straight to smoltcp's
// buffers (kernel/src/net/nic/rx.rs, tx.rs): MSG_PEEK, FIONREAD,
// SO_RCVTIMEO, a non-blocking read, shutdown(SHUT_WR) and end of file.
// The host's server (TestNetDeviceIO) sends "hello world", reads until
// the guest shuts down writing, answers "bye" and closes.
// Usage: netdevio HOSTPORT
package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL netdevio: "+format+"\n", args...)
	os.Exit(1)
}

func check(what string, err error) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

// readable waits until FIONREAD says `want` bytes are there.
func readable(fd, want int) int {
	for i := 0; i < 200; i++ {
		var n int32
		_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
		if e != 0 {
			fail("FIONREAD: %v", e)
		}
		if int(n) >= want {
			return int(n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	fail("FIONREAD never reached %d", want)
	return 0
}

func main() {
	port, err := strconv.Atoi(os.Args[1])
	check("port", err)
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	check("socket", err)
	check("connect", syscall.Connect(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{10, 0, 2, 2}}))
	if n := readable(fd, 11); n != 11 {
		fail("FIONREAD %d, want 11", n)
	}
	buf := make([]byte, 64)
	n, _, err := syscall.Recvfrom(fd, buf[:5], syscall.MSG_PEEK)
	if err != nil || string(buf[:n]) != "hello" {
		fail("peek: %q %v", buf[:n], err)
	}
	n, err = syscall.Read(fd, buf)
	if err != nil || string(buf[:n]) != "hello world" {
		fail("read: %q %v", buf[:n], err)
	}
	tv := syscall.Timeval{Usec: 200_000}
	check("SO_RCVTIMEO", syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv))
	start := time.Now()
	if _, err = syscall.Read(fd, buf); !errors.Is(err, syscall.EAGAIN) || time.Since(start) < 150*time.Millisecond {
		fail("read with SO_RCVTIMEO: %v after %v, want EAGAIN after 200ms", err, time.Since(start))
	}
	check("nonblock", syscall.SetNonblock(fd, true))
	if _, err = syscall.Read(fd, buf); !errors.Is(err, syscall.EAGAIN) {
		fail("non-blocking read: %v, want EAGAIN", err)
	}
	check("block", syscall.SetNonblock(fd, false))
	if n, err = syscall.Write(fd, []byte("ping")); n != 4 || err != nil {
		fail("write: %d %v", n, err)
	}
	check("shutdown", syscall.Shutdown(fd, syscall.SHUT_WR))
	if _, err = syscall.Write(fd, []byte("x")); !errors.Is(err, syscall.EPIPE) {
		fail("write after SHUT_WR: %v, want EPIPE", err)
	}
	var got []byte
	for {
		n, err = syscall.Read(fd, buf)
		if err != nil && !errors.Is(err, syscall.EAGAIN) {
			fail("read the answer: %v", err)
		}
		if n <= 0 && err == nil {
			break // end of file
		}
		if n > 0 {
			got = append(got, buf[:n]...)
		}
	}
	if string(got) != "bye" {
		fail("answer %q, want \"bye\"", got)
	}
	syscall.Close(fd)
	fmt.Println("PASS netdevio")
}
