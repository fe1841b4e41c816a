package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"time"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/net/ipv4"
	"golang.org/x/sys/unix"
)

// keepK keeps a UDP datagram whose payload starts with 'K', cut to 4
// bytes of payload (the filter sees the 8-byte UDP header first), and
// checks through the network header that it is UDP (protocol 17).
var keepK = []bpf.Instruction{
	bpf.LoadAbsolute{Off: 0xfff00000 + 9, Size: 1}, // SKF_NET_OFF + the IPv4 protocol byte
	bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 17, SkipTrue: 3},
	bpf.LoadAbsolute{Off: 8, Size: 1},
	bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 'K', SkipTrue: 1},
	bpf.RetConstant{Val: 8 + 4},
	bpf.RetConstant{Val: 0},
}

func assemble(prog []bpf.Instruction) []bpf.RawInstruction {
	raw, err := bpf.Assemble(prog)
	must(err, "bpf.Assemble")
	return raw
}

// filterUDP: datagrams through a filter set with ipv4.PacketConn.SetBPF.
func filterUDP() {
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	must(err, "listen udp")
	defer c.Close()
	must(ipv4.NewPacketConn(c).SetBPF(assemble(keepK)), "SetBPF")
	s, err := net.Dial("udp4", c.LocalAddr().String())
	must(err, "dial udp")
	defer s.Close()
	for _, m := range []string{"drop me", "Keep this long one", "no", "KO"} {
		_, err := s.Write([]byte(m))
		must(err, "send")
	}
	want := []string{"Keep", "KO"}
	buf := make([]byte, 100)
	for _, w := range want {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, _, err := c.ReadFrom(buf)
		must(err, "receive through the filter")
		if string(buf[:n]) != w {
			fail("filter: received %q, want %q", buf[:n], w)
		}
	}
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, _, err := c.ReadFrom(buf); err == nil {
		fail("filter: an extra datagram %q came through", buf[:n])
	}

	// SO_GET_FILTER counts instructions and gives the program back.
	fd := fdOf(c.(*net.UDPConn))
	count, err := getFilter(fd, nil)
	if err != nil || count != len(keepK) {
		fail("SO_GET_FILTER count: %d (%v), want %d", count, err, len(keepK))
	}
	got := make([]unix.SockFilter, count)
	if _, err := getFilter(fd, got); err != nil || got[2].K != 8 || got[4].K != 12 {
		fail("SO_GET_FILTER program: %+v (%v)", got, err)
	}
	// Locked: neither detached nor unlocked.
	must(unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_LOCK_FILTER, 1), "SO_LOCK_FILTER")
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DETACH_FILTER, 0); !errors.Is(err, unix.EPERM) {
		fail("detach a locked filter: %v, want EPERM", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_LOCK_FILTER, 0); !errors.Is(err, unix.EPERM) {
		fail("unlock a filter: %v, want EPERM", err)
	}
	fmt.Println("sockopts: BPF filter on UDP kept 2 of 4 datagrams, cut to 4 bytes; SO_GET_FILTER, SO_LOCK_FILTER ok")
}

func fdOf(c *net.UDPConn) int {
	rc, err := c.SyscallConn()
	must(err, "SyscallConn")
	var fd int
	rc.Control(func(f uintptr) { fd = int(f) })
	return fd
}

// getFilter reads SO_GET_FILTER into prog (nil: only the count).
func getFilter(fd int, prog []unix.SockFilter) (int, error) {
	n := uint32(len(prog))
	var p unsafe.Pointer
	if len(prog) > 0 {
		p = unsafe.Pointer(&prog[0])
	}
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_GET_FILTER, uintptr(p), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// filterUnix: an AF_UNIX datagram socket's filter keeps messages of at
// least 3 bytes (the length extension).
func filterUnix() {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	must(err, "socketpair")
	defer unix.Close(pair[0])
	defer unix.Close(pair[1])
	prog := assemble([]bpf.Instruction{
		bpf.LoadExtension{Num: bpf.ExtLen},
		bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 3, SkipFalse: 1},
		bpf.RetConstant{Val: 0xffff},
		bpf.RetConstant{Val: 0},
	})
	attach(pair[1], prog)
	for _, m := range []string{"ab", "abcdef", "x", "xyz"} {
		_, err := unix.Write(pair[0], []byte(m))
		must(err, "unix send")
	}
	buf := make([]byte, 64)
	var got [][]byte
	for {
		n, _, err := unix.Recvfrom(pair[1], buf, unix.MSG_DONTWAIT)
		if err != nil {
			break
		}
		got = append(got, append([]byte(nil), buf[:n]...))
	}
	if len(got) != 2 || !bytes.Equal(got[0], []byte("abcdef")) || !bytes.Equal(got[1], []byte("xyz")) {
		fail("unix filter: received %q, want [abcdef xyz]", got)
	}
	must(unix.SetsockoptInt(pair[1], unix.SOL_SOCKET, unix.SO_DETACH_FILTER, 0), "SO_DETACH_FILTER")
	if err := unix.SetsockoptInt(pair[1], unix.SOL_SOCKET, unix.SO_DETACH_FILTER, 0); !errors.Is(err, unix.ENOENT) {
		fail("detach with no filter: %v, want ENOENT", err)
	}
	unix.Write(pair[0], []byte("x"))
	if n, _, err := unix.Recvfrom(pair[1], buf, unix.MSG_DONTWAIT); err != nil || n != 1 {
		fail("after SO_DETACH_FILTER: %d bytes (%v), want 1", n, err)
	}
	fmt.Println("sockopts: BPF filter on AF_UNIX datagrams kept 2 of 4; SO_DETACH_FILTER ok")
}

func attach(fd int, raw []bpf.RawInstruction) error {
	prog := unix.SockFprog{Len: uint16(len(raw)), Filter: (*unix.SockFilter)(unsafe.Pointer(&raw[0]))}
	err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &prog)
	must(err, "SO_ATTACH_FILTER")
	return err
}

// filterRefused: programs Linux's checks refuse are EINVAL.
func filterRefused() {
	fd := socketOf("udp")
	defer unix.Close(fd)
	bad := map[string][]unix.SockFilter{
		"ret x":             {{Code: 0x0e}},
		"no return at end":  {{Code: 0x00, K: 1}},
		"divide by 0":       {{Code: 0x34, K: 0}, {Code: 0x06, K: 1}},
		"jump past the end": {{Code: 0x05, K: 5}, {Code: 0x06, K: 1}},
		"M[3] never set":    {{Code: 0x60, K: 3}, {Code: 0x16}},
		"unknown ancillary": {{Code: 0x20, K: 0xfffff000 + 2}, {Code: 0x06, K: 1}},
	}
	for what, p := range bad {
		prog := unix.SockFprog{Len: uint16(len(p)), Filter: &p[0]}
		if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &prog); !errors.Is(err, unix.EINVAL) {
			fail("attach %s: %v, want EINVAL", what, err)
		}
	}
	empty := unix.SockFprog{}
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &empty); !errors.Is(err, unix.EINVAL) {
		fail("attach an empty program: %v, want EINVAL", err)
	}
	fmt.Printf("sockopts: %d bad programs refused\n", len(bad)+1)
}
