// Test program sockopts: the socket options Linux accepts, read back as
// Linux reads them (docs/syscalls.md, "Socket options"), a classic BPF
// filter from golang.org/x/net/bpf on UDP and AF_UNIX datagram sockets
// (kept, dropped, cut; SO_GET_FILTER, SO_LOCK_FILTER), and a listener
// with TCP_DEFER_ACCEPT: it starts, accepts a connection with data at
// once and one without only when the deferral has passed (issue 30). It
// runs on Linux as well.
package main

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL sockopts: "+format+"\n", args...)
	os.Exit(1)
}

func must(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func main() {
	table()
	specials()
	filterUDP()
	filterUnix()
	filterRefused()
	deferAccept()
	fmt.Println("PASS sockopts")
}

// opt is one row of the table: on a socket of kind `on`, setting `set`
// reads back `want` (or setting fails with `err`).
type opt struct {
	on          string
	level, name int
	set, want   int
	err         error
}

func socketOf(kind string) int {
	var fd int
	var err error
	switch kind {
	case "tcp":
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	case "tcp6":
		fd, err = unix.Socket(unix.AF_INET6, unix.SOCK_STREAM, 0)
	case "udp":
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	case "udp6":
		fd, err = unix.Socket(unix.AF_INET6, unix.SOCK_DGRAM, 0)
	case "raw":
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)
	case "unix":
		fd, err = unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	}
	must(err, "socket "+kind)
	return fd
}

// table sets and reads back each int option of docs/syscalls.md's table
// that takes a value.
func table() {
	rows := []opt{
		{"tcp", unix.SOL_SOCKET, unix.SO_DEBUG, 7, 1, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_REUSEADDR, 1, 1, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_DONTROUTE, 1, 1, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_BROADCAST, 1, 1, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1, 1, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_OOBINLINE, 1, 1, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_NO_CHECK, 1, 1, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_PRIORITY, 6, 6, nil},
		{"unix", unix.SOL_SOCKET, unix.SO_PASSCRED, 1, 1, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_REUSEPORT, 1, 1, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_RCVLOWAT, 0, 1, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_RCVLOWAT, 100, 100, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_PASSSEC, 1, 1, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_MARK, 42, 42, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_RXQ_OVFL, 1, 1, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_WIFI_STATUS, 1, 1, nil},
		{"raw", unix.SOL_SOCKET, unix.SO_NOFCS, 1, 1, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_SELECT_ERR_QUEUE, 1, 1, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_BUSY_POLL, 50, 50, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_BUSY_POLL, -1, 0, unix.EINVAL},
		{"udp", unix.SOL_SOCKET, unix.SO_INCOMING_CPU, 1, 1, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_PREFER_BUSY_POLL, 1, 1, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_BUSY_POLL_BUDGET, 8, 8, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_RCVMARK, 1, 1, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_BUF_LOCK, 3, 3, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_BUF_LOCK, 4, 0, unix.EINVAL},
		{"udp", unix.SOL_SOCKET, unix.SO_BINDTOIFINDEX, 1, 1, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_BINDTOIFINDEX, 99, 0, unix.ENODEV},
		{"udp", unix.SOL_SOCKET, unix.SO_SNDLOWAT, 1, 0, unix.ENOPROTOOPT},
		{"tcp", unix.SOL_SOCKET, unix.SO_PEEK_OFF, 1, 0, unix.EOPNOTSUPP},
		{"tcp", unix.SOL_SOCKET, unix.SO_ZEROCOPY, 1, 0, unix.EOPNOTSUPP},
		{"udp", unix.IPPROTO_IP, unix.IP_TOS, 0x10, 0x10, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_TTL, 9, 9, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_TTL, -1, 64, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_TTL, 256, 0, unix.EINVAL},
		{"udp", unix.IPPROTO_IP, unix.IP_RECVOPTS, 1, 1, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_RETOPTS, 1, 1, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_PKTINFO, 1, 1, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, 2, 2, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_RECVERR, 1, 1, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_RECVTTL, 1, 1, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_RECVTOS, 1, 1, nil},
		{"tcp", unix.IPPROTO_IP, unix.IP_FREEBIND, 1, 1, nil},
		{"tcp", unix.IPPROTO_IP, unix.IP_TRANSPARENT, 1, 1, nil},
		{"tcp", unix.IPPROTO_IP, unix.IP_MINTTL, 200, 200, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_MULTICAST_TTL, 5, 5, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_MULTICAST_LOOP, 0, 0, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_MULTICAST_ALL, 0, 0, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_UNICAST_IF, 1, 1, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_UNICAST_HOPS, 5, 5, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_UNICAST_HOPS, -1, 64, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_HOPS, 3, 3, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_LOOP, 0, 0, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_MTU_DISCOVER, 3, 3, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_RECVERR, 1, 1, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1, 1, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_RECVPKTINFO, 1, 1, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_RECVHOPLIMIT, 1, 1, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_RECVHOPOPTS, 1, 1, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_RECVRTHDR, 1, 1, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_RECVDSTOPTS, 1, 1, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_RECVPATHMTU, 1, 1, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_DONTFRAG, 1, 1, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_RECVTCLASS, 1, 1, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_TCLASS, 0x20, 0x20, nil},
		{"tcp6", unix.IPPROTO_IPV6, unix.IPV6_FREEBIND, 1, 1, nil},
		{"tcp6", unix.IPPROTO_IPV6, unix.IPV6_TRANSPARENT, 1, 1, nil},
		{"tcp6", unix.IPPROTO_IPV6, unix.IPV6_MINHOPCOUNT, 3, 3, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_ALL, 0, 0, nil},
		{"udp6", unix.IPPROTO_IPV6, unix.IPV6_UNICAST_IF, 1, 1, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_NODELAY, 5, 1, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_MAXSEG, 1000, 1000, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_MAXSEG, 50, 0, unix.EINVAL},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_CORK, 1, 1, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 30, 30, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 0, 0, unix.EINVAL},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 5, 5, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 3, 3, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 128, 0, unix.EINVAL},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_SYNCNT, 3, 3, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_LINGER2, 10, 10, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_LINGER2, -5, -1, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT, 5, 7, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT, 1, 1, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT, 30, 31, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_WINDOW_CLAMP, 20000, 20000, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_QUICKACK, 0, 0, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, 5000, 5000, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_FASTOPEN, 16, 16, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, 4096, 4096, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_SAVE_SYN, 1, 1, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_SAVE_SYN, 2, 0, unix.EINVAL},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_FASTOPEN_CONNECT, 1, 1, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_FASTOPEN_NO_COOKIE, 1, 1, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_THIN_LINEAR_TIMEOUTS, 1, 1, nil},
		{"udp", unix.IPPROTO_UDP, unix.UDP_NO_CHECK6_TX, 1, 1, nil},
		{"udp", unix.IPPROTO_UDP, unix.UDP_NO_CHECK6_RX, 1, 1, nil},
		{"udp", unix.IPPROTO_UDP, unix.UDP_GRO, 1, 1, nil},
		{"udp", unix.IPPROTO_TCP, unix.TCP_NODELAY, 1, 0, unix.ENOPROTOOPT},
		{"tcp", unix.IPPROTO_UDP, unix.UDP_GRO, 1, 0, unix.ENOPROTOOPT},
	}
	for _, r := range rows {
		fd := socketOf(r.on)
		err := unix.SetsockoptInt(fd, r.level, r.name, r.set)
		if !errors.Is(err, r.err) && !(err == nil && r.err == nil) {
			fail("%s level %d option %d = %d: got %v, want %v", r.on, r.level, r.name, r.set, err, r.err)
		}
		if r.err == nil {
			got, err := unix.GetsockoptInt(fd, r.level, r.name)
			if err != nil || got != r.want {
				fail("%s level %d option %d: set %d, read %d (%v), want %d", r.on, r.level, r.name, r.set, got, err, r.want)
			}
		}
		unix.Close(fd)
	}
	// What a fresh socket reads, as on Linux.
	defaults := []opt{
		{"tcp", unix.SOL_SOCKET, unix.SO_RCVLOWAT, 0, 1, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_SNDLOWAT, 0, 1, nil},
		{"tcp", unix.SOL_SOCKET, unix.SO_BPF_EXTENSIONS, 0, 64, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_INCOMING_CPU, 0, -1, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_QUICKACK, 0, 1, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_LINGER2, 0, 60, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_SYNCNT, 0, 6, nil},
		{"tcp", unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT, 0, 0, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_MULTICAST_ALL, 0, 1, nil},
		{"udp", unix.IPPROTO_IP, unix.IP_PROTOCOL, 0, unix.IPPROTO_UDP, nil},
		{"tcp", unix.IPPROTO_IP, unix.IP_PROTOCOL, 0, unix.IPPROTO_TCP, nil},
		{"raw", unix.IPPROTO_IP, unix.IP_PROTOCOL, 0, unix.IPPROTO_ICMP, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_ZEROCOPY, 0, 0, nil},
		{"udp", unix.SOL_SOCKET, unix.SO_LOCK_FILTER, 0, 0, nil},
	}
	for _, r := range defaults {
		fd := socketOf(r.on)
		got, err := unix.GetsockoptInt(fd, r.level, r.name)
		if err != nil || got != r.want {
			fail("%s level %d option %d: a fresh socket reads %d (%v), want %d", r.on, r.level, r.name, got, err, r.want)
		}
		unix.Close(fd)
	}
	fmt.Printf("sockopts: %d options set and read back, %d defaults ok\n", len(rows), len(defaults))
}

// specials: the options that are not plain ints.
func specials() {
	fd := socketOf("udp")
	must(unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 10000), "SO_SNDBUF")
	if v, _ := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_BUF_LOCK); v != 1 {
		fail("SO_BUF_LOCK after SO_SNDBUF: %d, want 1", v)
	}
	must(unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 1<<20), "SO_RCVBUFFORCE")
	if v, _ := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF); v != 2<<20 {
		fail("SO_RCVBUF after SO_RCVBUFFORCE 1 MiB: %d, want %d", v, 2<<20)
	}
	if _, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE); !errors.Is(err, unix.ENOPROTOOPT) {
		fail("getsockopt SO_RCVBUFFORCE: %v, want ENOPROTOOPT", err)
	}
	must(unix.SetsockoptString(fd, unix.SOL_SOCKET, unix.SO_BINDTODEVICE, "lo"), "SO_BINDTODEVICE lo")
	if name, err := unix.GetsockoptString(fd, unix.SOL_SOCKET, unix.SO_BINDTODEVICE); err != nil || name != "lo" {
		fail("SO_BINDTODEVICE reads %q (%v), want lo", name, err)
	}
	if err := unix.SetsockoptString(fd, unix.SOL_SOCKET, unix.SO_BINDTODEVICE, "nosuch0"); !errors.Is(err, unix.ENODEV) {
		fail("SO_BINDTODEVICE nosuch0: %v, want ENODEV", err)
	}
	c1, err := unix.GetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_COOKIE)
	c2, _ := unix.GetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_COOKIE)
	other := socketOf("udp")
	c3, _ := unix.GetsockoptUint64(other, unix.SOL_SOCKET, unix.SO_COOKIE)
	if err != nil || c1 == 0 || c1 != c2 || c1 == c3 {
		fail("SO_COOKIE: %d, %d, other socket %d (%v)", c1, c2, c3, err)
	}
	if _, err := unix.GetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MTU); !errors.Is(err, unix.ENOTCONN) {
		fail("IP_MTU unconnected: %v, want ENOTCONN", err)
	}
	must(unix.Connect(fd, &unix.SockaddrInet4{Port: 9, Addr: [4]byte{127, 0, 0, 1}}), "connect")
	if v, err := unix.GetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MTU); err != nil || v != 65536 {
		fail("IP_MTU to 127.0.0.1: %d (%v), want 65536", v, err)
	}
	unix.Close(fd)
	unix.Close(other)

	t := socketOf("tcp")
	if cc, err := unix.GetsockoptString(t, unix.IPPROTO_TCP, unix.TCP_CONGESTION); err != nil || cc != "cubic" {
		fail("TCP_CONGESTION reads %q (%v), want cubic", cc, err)
	}
	must(unix.SetsockoptString(t, unix.IPPROTO_TCP, unix.TCP_CONGESTION, "reno"), "TCP_CONGESTION reno")
	if cc, _ := unix.GetsockoptString(t, unix.IPPROTO_TCP, unix.TCP_CONGESTION); cc != "reno" {
		fail("TCP_CONGESTION after reno: %q", cc)
	}
	if err := unix.SetsockoptString(t, unix.IPPROTO_TCP, unix.TCP_CONGESTION, "nosuch"); !errors.Is(err, unix.ENOENT) {
		fail("TCP_CONGESTION nosuch: %v, want ENOENT", err)
	}
	if cred, err := unix.GetsockoptUcred(t, unix.SOL_SOCKET, unix.SO_PEERCRED); err != nil || cred.Pid != 0 || cred.Uid != ^uint32(0) {
		fail("SO_PEERCRED of TCP: %+v (%v), want pid 0 uid -1", cred, err)
	}
	// IP_FREEBIND lets bind name an address this machine does not have.
	if err := unix.Bind(t, &unix.SockaddrInet4{Addr: [4]byte{192, 0, 2, 7}}); !errors.Is(err, unix.EADDRNOTAVAIL) {
		fail("bind 192.0.2.7: %v, want EADDRNOTAVAIL", err)
	}
	must(unix.SetsockoptInt(t, unix.IPPROTO_IP, unix.IP_FREEBIND, 1), "IP_FREEBIND")
	must(unix.Bind(t, &unix.SockaddrInet4{Addr: [4]byte{192, 0, 2, 7}}), "bind 192.0.2.7 with IP_FREEBIND")
	unix.Close(t)

	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	must(err, "socketpair")
	cred, err := unix.GetsockoptUcred(pair[0], unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil || int(cred.Pid) != os.Getpid() || cred.Uid != uint32(os.Getuid()) {
		fail("SO_PEERCRED of a socketpair: %+v (%v), want pid %d uid %d", cred, err, os.Getpid(), os.Getuid())
	}
	unix.Close(pair[0])
	unix.Close(pair[1])
	fmt.Println("sockopts: SO_BUF_LOCK, SO_RCVBUFFORCE, SO_BINDTODEVICE, SO_COOKIE, IP_MTU, TCP_CONGESTION, SO_PEERCRED, IP_FREEBIND ok")
}
