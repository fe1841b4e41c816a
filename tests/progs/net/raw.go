// The raw calls: errnos and option values as Linux gives them.
package main

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

func expectErr(what string, err, want error) {
	if !errors.Is(err, want) {
		fail("%s: %v, want %v", what, err, want)
	}
}

func rawCalls() {
	_, err := syscall.Socket(255, syscall.SOCK_STREAM, 0)
	expectErr("socket(family 255)", err, syscall.EAFNOSUPPORT)
	_, err = syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, syscall.IPPROTO_UDP)
	expectErr("socket(TCP with UDP)", err, syscall.EPROTONOSUPPORT)
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	check("socket", err)
	defer syscall.Close(fd)
	if v, _ := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TYPE); v != syscall.SOCK_STREAM {
		fail("SO_TYPE %d", v)
	}
	check("TCP_NODELAY", syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 5))
	if v, _ := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY); v != 1 {
		fail("TCP_NODELAY reads %d, want 1", v)
	}
	check("SO_RCVBUF", syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, 65536))
	if v, _ := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF); v != 131072 {
		fail("SO_RCVBUF reads %d, want 131072", v)
	}
	expectErr("unknown option", syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, 999, 1), syscall.ENOPROTOOPT)
	expectErr("IPV6_V6ONLY on IPv4", syscall.SetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY, 1), syscall.ENOPROTOOPT)
	_, err = syscall.Getpeername(fd)
	expectErr("getpeername unconnected", err, syscall.ENOTCONN)
	// Non-blocking connect: EINPROGRESS, then SO_ERROR says how it went.
	l, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	check("socket", err)
	defer syscall.Close(l)
	check("bind", syscall.Bind(l, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	check("listen", syscall.Listen(l, 128))
	sa, _ := syscall.Getsockname(l)
	port := sa.(*syscall.SockaddrInet4).Port
	expectErr("bind in use", syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: port}), syscall.EADDRINUSE)
	expectErr("connect", syscall.Connect(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: port}), syscall.EINPROGRESS)
	if v, _ := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ERROR); v != 0 {
		fail("SO_ERROR after connect %d", v)
	}
	// As Linux: the next connect reports the outcome (0), the one after EISCONN.
	check("connect after EINPROGRESS", syscall.Connect(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: port}))
	expectErr("connect again", syscall.Connect(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: port}), syscall.EISCONN)
	nfd, peer, err := syscall.Accept4(l, syscall.SOCK_CLOEXEC)
	check("accept4", err)
	local, _ := syscall.Getsockname(fd)
	if peer.(*syscall.SockaddrInet4).Port != local.(*syscall.SockaddrInet4).Port {
		fail("accepted peer %v, client %v", peer, local)
	}
	syscall.Close(nfd)
	// A refused non-blocking connect: EINPROGRESS then SO_ERROR ECONNREFUSED.
	r, _ := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK, 0)
	defer syscall.Close(r)
	expectErr("connect refused", syscall.Connect(r, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: 1}), syscall.EINPROGRESS)
	if v, _ := syscall.GetsockoptInt(r, syscall.SOL_SOCKET, syscall.SO_ERROR); v != int(syscall.ECONNREFUSED) {
		fail("SO_ERROR after refused connect %d", v)
	}
	// Bad input: an address of the wrong family, a short one, a bad pointer.
	expectErr("bind v6 addr to v4 socket", syscall.Bind(r, &syscall.SockaddrInet6{}), syscall.EAFNOSUPPORT)
	_, _, e := syscall.Syscall(syscall.SYS_BIND, uintptr(r), uintptr(unsafe.Pointer(&[4]byte{2, 0, 0, 0})), 4)
	expectErr("short sockaddr", e, syscall.EINVAL)
	_, _, e = syscall.Syscall(syscall.SYS_CONNECT, uintptr(r), 16, 16)
	expectErr("bad pointer", e, syscall.EFAULT)
	_, _, e = syscall.Syscall(syscall.SYS_SHUTDOWN, 1, 1, 0)
	expectErr("shutdown on a non-socket", e, syscall.ENOTSOCK)
	fmt.Println("raw: errnos and options ok")
}
