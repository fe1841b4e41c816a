// Test program udpctl: UDP control messages (IP_PKTINFO, IP_RECVTTL,
// IP_RECVTOS, IPV6_RECVPKTINFO, IPV6_RECVHOPLIMIT, IPV6_RECVTCLASS) and
// SO_REUSEPORT load spreading over TCP listeners and UDP sockets
// (issue 23), on loopback. It runs on Linux as well.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL udpctl: "+format+"\n", args...)
	os.Exit(1)
}

func must(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func main() {
	controlV4()
	controlV6()
	controlDualStack()
	sendControl()
	batches()
	reusePortTCP()
	reusePortUDP()
	fmt.Println("PASS udpctl")
}

// rawUDP is a UDP socket bound to addr, with its descriptor.
func rawUDP(network, addr string) (*net.UDPConn, int) {
	c, err := net.ListenPacket(network, addr)
	must(err, "listen "+addr)
	uc := c.(*net.UDPConn)
	raw, _ := uc.SyscallConn()
	var fd int
	raw.Control(func(f uintptr) { fd = int(f) })
	return uc, fd
}

func setInt(fd, level, name, v int) {
	must(syscall.SetsockoptInt(fd, level, name, v), fmt.Sprintf("setsockopt(%d, %d)", level, name))
}

// receive reads one datagram with room for `oob` bytes of control data.
func receive(c *net.UDPConn, oob int) ([]syscall.SocketControlMessage, int) {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, o := make([]byte, 100), make([]byte, oob)
	_, oobn, flags, _, err := c.ReadMsgUDP(b, o)
	must(err, "ReadMsgUDP")
	msgs, err := syscall.ParseSocketControlMessage(o[:oobn])
	must(err, "ParseSocketControlMessage")
	return msgs, flags
}

func controlV4() {
	srv, fd := rawUDP("udp4", "127.0.0.1:0")
	defer srv.Close()
	setInt(fd, syscall.IPPROTO_IP, syscall.IP_PKTINFO, 1)
	setInt(fd, syscall.IPPROTO_IP, syscall.IP_RECVTTL, 1)
	setInt(fd, syscall.IPPROTO_IP, syscall.IP_RECVTOS, 1)
	if v, err := syscall.GetsockoptInt(fd, syscall.IPPROTO_IP, syscall.IP_PKTINFO); err != nil || v != 1 {
		fail("getsockopt IP_PKTINFO = %d, %v", v, err)
	}
	// What QUIC stacks set on their sockets.
	setInt(fd, syscall.IPPROTO_IP, syscall.IP_MTU_DISCOVER, syscall.IP_PMTUDISC_DO)
	setInt(fd, syscall.IPPROTO_IP, syscall.IP_RECVERR, 1)
	if v, err := syscall.GetsockoptInt(fd, syscall.IPPROTO_IP, syscall.IP_MTU_DISCOVER); err != nil || v != syscall.IP_PMTUDISC_DO {
		fail("getsockopt IP_MTU_DISCOVER = %d, %v", v, err)
	}
	cli, cfd := rawUDP("udp4", "127.0.0.1:0")
	defer cli.Close()
	setInt(cfd, syscall.IPPROTO_IP, syscall.IP_TOS, 0xb8)
	setInt(cfd, syscall.IPPROTO_IP, syscall.IP_TTL, 33)
	cli.WriteTo([]byte("ping"), srv.LocalAddr())
	msgs, _ := receive(srv, 256)
	var got []string
	for _, m := range msgs {
		switch {
		case m.Header.Level == syscall.IPPROTO_IP && m.Header.Type == syscall.IP_PKTINFO:
			info := (*syscall.Inet4Pktinfo)(ptr(m.Data))
			if info.Ifindex != 1 || net.IP(info.Addr[:]).String() != "127.0.0.1" {
				fail("IP_PKTINFO: %+v", *info)
			}
			got = append(got, "pktinfo")
		case m.Header.Level == syscall.IPPROTO_IP && m.Header.Type == syscall.IP_TTL:
			if ttl := int(m.Data[0]); ttl != 33 {
				fail("IP_TTL %d, want 33", ttl)
			}
			got = append(got, "ttl")
		case m.Header.Level == syscall.IPPROTO_IP && m.Header.Type == syscall.IP_TOS:
			if len(m.Data) != 1 || m.Data[0] != 0xb8 {
				fail("IP_TOS %x, want b8 (one byte)", m.Data)
			}
			got = append(got, "tos")
		}
	}
	if fmt.Sprint(got) != "[pktinfo ttl tos]" {
		fail("IPv4 control messages %v", got)
	}
	// Room for the first message only: it comes, with MSG_CTRUNC.
	cli.WriteTo([]byte("ping"), srv.LocalAddr())
	msgs, flags := receive(srv, syscall.CmsgSpace(12))
	if len(msgs) != 1 || flags&syscall.MSG_CTRUNC == 0 {
		fail("short control buffer: %d messages, flags %#x", len(msgs), flags)
	}
	fmt.Println("udpctl: IPv4 IP_PKTINFO, IP_TTL, IP_TOS ok")
}

func controlV6() {
	srv, fd := rawUDP("udp6", "[::1]:0")
	defer srv.Close()
	setInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_RECVPKTINFO, 1)
	setInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_RECVHOPLIMIT, 1)
	setInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_RECVTCLASS, 1)
	cli, cfd := rawUDP("udp6", "[::1]:0")
	defer cli.Close()
	setInt(cfd, syscall.IPPROTO_IPV6, syscall.IPV6_TCLASS, 0x20)
	setInt(cfd, syscall.IPPROTO_IPV6, syscall.IPV6_UNICAST_HOPS, 7)
	cli.WriteTo([]byte("ping"), srv.LocalAddr())
	msgs, _ := receive(srv, 256)
	var got []string
	for _, m := range msgs {
		if m.Header.Level != syscall.IPPROTO_IPV6 {
			continue
		}
		switch m.Header.Type {
		case syscall.IPV6_PKTINFO:
			info := (*syscall.Inet6Pktinfo)(ptr(m.Data))
			if info.Ifindex != 1 || net.IP(info.Addr[:]).String() != "::1" {
				fail("IPV6_PKTINFO: %+v", *info)
			}
			got = append(got, "pktinfo")
		case syscall.IPV6_HOPLIMIT:
			if m.Data[0] != 7 {
				fail("IPV6_HOPLIMIT %d, want 7", m.Data[0])
			}
			got = append(got, "hoplimit")
		case syscall.IPV6_TCLASS:
			if m.Data[0] != 0x20 {
				fail("IPV6_TCLASS %#x, want 0x20", m.Data[0])
			}
			got = append(got, "tclass")
		}
	}
	if fmt.Sprint(got) != "[pktinfo hoplimit tclass]" {
		fail("IPv6 control messages %v", got)
	}
	fmt.Println("udpctl: IPv6 IPV6_PKTINFO, IPV6_HOPLIMIT, IPV6_TCLASS ok")
}

// controlDualStack: an IPv4 datagram on an IPv6 socket reports the
// IPv4-mapped destination.
func controlDualStack() {
	srv, fd := rawUDP("udp", "[::]:0")
	defer srv.Close()
	setInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_RECVPKTINFO, 1)
	cli, _ := rawUDP("udp4", "127.0.0.1:0")
	defer cli.Close()
	port := srv.LocalAddr().(*net.UDPAddr).Port
	cli.WriteTo([]byte("ping"), &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	msgs, _ := receive(srv, 256)
	if len(msgs) != 1 || msgs[0].Header.Type != syscall.IPV6_PKTINFO {
		fail("dual-stack: %d messages", len(msgs))
	}
	if a := net.IP((*syscall.Inet6Pktinfo)(ptr(msgs[0].Data)).Addr[:]); a.String() != "127.0.0.1" || a.To4() == nil {
		fail("dual-stack IPV6_PKTINFO address %v", a)
	}
	fmt.Println("udpctl: dual-stack IPV6_PKTINFO ok")
}

// sendControl: sendmsg with IP_PKTINFO and IP_TOS (how QUIC stacks send).
func sendControl() {
	srv, _ := rawUDP("udp4", "127.0.0.1:0")
	defer srv.Close()
	cli, _ := rawUDP("udp4", "127.0.0.1:0")
	defer cli.Close()
	oob := make([]byte, syscall.CmsgSpace(12)+syscall.CmsgSpace(4))
	h := (*syscall.Cmsghdr)(ptr(oob))
	h.Level, h.Type = syscall.IPPROTO_IP, syscall.IP_PKTINFO
	h.SetLen(syscall.CmsgLen(12))
	copy(oob[syscall.CmsgLen(0)+4:], []byte{127, 0, 0, 1}) // ipi_spec_dst
	h2 := (*syscall.Cmsghdr)(ptr(oob[syscall.CmsgSpace(12):]))
	h2.Level, h2.Type = syscall.IPPROTO_IP, syscall.IP_TOS
	h2.SetLen(syscall.CmsgLen(4))
	oob[syscall.CmsgSpace(12)+syscall.CmsgLen(0)] = 2
	if _, _, err := cli.WriteMsgUDP([]byte("hi"), oob, srv.LocalAddr().(*net.UDPAddr)); err != nil {
		fail("sendmsg with IP_PKTINFO and IP_TOS: %v", err)
	}
	receive(srv, 0)
	// Linux ignores SCM_RIGHTS on UDP, and refuses an IP message it
	// does not know.
	if _, _, err := cli.WriteMsgUDP([]byte("hi"), syscall.UnixRights(0), srv.LocalAddr().(*net.UDPAddr)); err != nil {
		fail("sendmsg with SCM_RIGHTS on UDP: %v", err)
	}
	receive(srv, 0)
	h.Type = 99
	if _, _, err := cli.WriteMsgUDP([]byte("hi"), oob, srv.LocalAddr().(*net.UDPAddr)); err == nil {
		fail("sendmsg with IP control message 99 succeeded")
	}
	fmt.Println("udpctl: sendmsg control messages ok")
}

var reusePort = net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
	var err error
	c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, soReusePort, 1) })
	return err
}}

func reusePortTCP() {
	ctx := context.Background()
	a, err := reusePort.Listen(ctx, "tcp4", "127.0.0.1:0")
	must(err, "listen with SO_REUSEPORT")
	defer a.Close()
	addr := a.Addr().String()
	if _, err := net.Listen("tcp4", addr); err == nil {
		fail("a second listener without SO_REUSEPORT on %s", addr)
	}
	b, err := reusePort.Listen(ctx, "tcp4", addr)
	must(err, "second listener with SO_REUSEPORT")
	defer b.Close()
	const conns = 64
	counts := make([]int, 2)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, ln := range []net.Listener{a, b} {
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				counts[i]++
				mu.Unlock()
				c.Write([]byte{byte(i)})
				c.Close()
			}
		}()
	}
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp4", addr)
			must(err, "dial")
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			one := make([]byte, 1)
			_, err = c.Read(one)
			must(err, "read")
			c.Close()
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if counts[0]+counts[1] != conns || counts[0] == 0 || counts[1] == 0 {
		fail("SO_REUSEPORT TCP: accepted %v of %d", counts, conns)
	}
	fmt.Printf("udpctl: SO_REUSEPORT TCP spread %d connections over 2 listeners\n", conns)
}

func reusePortUDP() {
	ctx := context.Background()
	a, err := reusePort.ListenPacket(ctx, "udp4", "127.0.0.1:0")
	must(err, "udp with SO_REUSEPORT")
	defer a.Close()
	b, err := reusePort.ListenPacket(ctx, "udp4", a.LocalAddr().String())
	must(err, "second udp with SO_REUSEPORT")
	defer b.Close()
	const senders, each = 32, 3
	got := make(chan [2]int, senders*each)
	for i, s := range []net.PacketConn{a, b} {
		go func() {
			buf := make([]byte, 16)
			for {
				_, from, err := s.ReadFrom(buf)
				if err != nil {
					return
				}
				got <- [2]int{i, from.(*net.UDPAddr).Port}
			}
		}()
	}
	for range senders {
		c, err := net.Dial("udp4", a.LocalAddr().String())
		must(err, "dial udp")
		for range each {
			c.Write([]byte("x"))
		}
		defer c.Close()
	}
	bySender := map[int]map[int]bool{}
	counts := [2]int{}
	for range senders * each {
		select {
		case g := <-got:
			counts[g[0]]++
			if bySender[g[1]] == nil {
				bySender[g[1]] = map[int]bool{}
			}
			bySender[g[1]][g[0]] = true
		case <-time.After(10 * time.Second):
			fail("SO_REUSEPORT UDP: datagrams lost (%v)", counts)
		}
	}
	for port, socks := range bySender {
		if len(socks) != 1 {
			fail("SO_REUSEPORT UDP: sender %d reached both sockets", port)
		}
	}
	if counts[0] == 0 || counts[1] == 0 {
		fail("SO_REUSEPORT UDP: %v", counts)
	}
	fmt.Printf("udpctl: SO_REUSEPORT UDP spread %d senders over 2 sockets, each sender on one\n", senders)
}

// SO_REUSEPORT (the syscall package predates it).
const soReusePort = 15

// mmsghdr is struct mmsghdr on 64-bit Linux.
type mmsghdr struct {
	hdr syscall.Msghdr
	n   uint32
	_   [4]byte
}

// batches: sendmmsg of 3 datagrams, then recvmmsg of up to 4 on a
// non-blocking socket gets the 3 with their lengths and IP_PKTINFO.
func batches() {
	srv, sfd := rawUDP("udp4", "127.0.0.1:0")
	defer srv.Close()
	setInt(sfd, syscall.IPPROTO_IP, syscall.IP_PKTINFO, 1)
	cli, cfd := rawUDP("udp4", "127.0.0.1:0")
	defer cli.Close()
	must(syscall.Connect(cfd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: srv.LocalAddr().(*net.UDPAddr).Port}), "connect")
	payloads := [][]byte{[]byte("one"), []byte("three"), []byte("fifteen")}
	out := make([]mmsghdr, len(payloads))
	iovs := make([]syscall.Iovec, len(payloads))
	for i, p := range payloads {
		iovs[i].Base = &p[0]
		iovs[i].SetLen(len(p))
		out[i].hdr.Iov = &iovs[i]
		out[i].hdr.Iovlen = 1
	}
	n, _, errno := syscall.Syscall6(sysSendmmsg, uintptr(cfd), uintptr(ptrOf(&out[0])), uintptr(len(out)), 0, 0, 0)
	if errno != 0 || n != 3 || out[2].n != 7 {
		fail("sendmmsg: %d %v, msg_len %d", n, errno, out[2].n)
	}
	in := make([]mmsghdr, 4)
	bufs := make([][]byte, 4)
	oobs := make([][]byte, 4)
	riovs := make([]syscall.Iovec, 4)
	for i := range in {
		bufs[i], oobs[i] = make([]byte, 64), make([]byte, 64)
		riovs[i].Base = &bufs[i][0]
		riovs[i].SetLen(64)
		in[i].hdr.Iov = &riovs[i]
		in[i].hdr.Iovlen = 1
		in[i].hdr.Control = &oobs[i][0]
		in[i].hdr.SetControllen(64)
	}
	n, _, errno = syscall.Syscall6(sysRecvmmsg, uintptr(sfd), uintptr(ptrOf(&in[0])), 4, 0, 0, 0)
	if errno != 0 || n != 3 {
		fail("recvmmsg: %d %v", n, errno)
	}
	for i, p := range payloads {
		got := string(bufs[i][:in[i].n])
		msgs, err := syscall.ParseSocketControlMessage(oobs[i][:in[i].hdr.Controllen])
		if got != string(p) || err != nil || len(msgs) != 1 || msgs[0].Header.Type != syscall.IP_PKTINFO {
			fail("recvmmsg element %d: %q, %d control messages %v", i, got, len(msgs), err)
		}
	}
	fmt.Println("udpctl: sendmmsg and recvmmsg ok")
}
