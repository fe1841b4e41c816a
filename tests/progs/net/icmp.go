// ICMP echo on loopback, IPv4 and IPv6: a ping socket (SOCK_DGRAM,
// IPPROTO_ICMP or IPPROTO_ICMPV6) as golang.org/x/net/icmp opens it, and a
// raw ICMP socket as net.ListenPacket("ip4:icmp") and
// ("ip6:ipv6-icmp") open it.
package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// echoRequest is an ICMP echo request with identifier and checksum zero
// (a ping socket writes both).
func echoRequest(seq int, data []byte) []byte {
	return append([]byte{8, 0, 0, 0, 0, 0, byte(seq >> 8), byte(seq)}, data...)
}

// checksum is the Internet checksum (RFC 1071).
func checksum(b []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// pingSocket sends one echo request to ip on a new ping socket and checks
// the reply: same sequence number and data, sent from ip.
func pingSocket(ip [4]byte) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, syscall.IPPROTO_ICMP)
	check("ping socket", err)
	defer syscall.Close(fd)
	tv := syscall.Timeval{Sec: 10}
	check("SO_RCVTIMEO", syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv))
	data := []byte("gometal ping")
	to := &syscall.SockaddrInet4{Addr: ip}
	for try := 0; try < 5; try++ {
		check("ping sendto", syscall.Sendto(fd, echoRequest(7, data), 0, to))
		buf := make([]byte, 200)
		n, from, err := syscall.Recvfrom(fd, buf, 0)
		if err == syscall.EAGAIN {
			continue // lost (only possible off this machine): again
		}
		check("ping recvfrom", err)
		got := buf[:n]
		f, ok := from.(*syscall.SockaddrInet4)
		if !ok || f.Addr != ip || f.Port != 0 {
			fail("ping reply from %v, want %v port 0", from, ip)
		}
		if n < 8 || got[0] != 0 || got[7] != 7 || !bytes.Equal(got[8:], data) || checksum(got) != 0 {
			fail("ping reply % x", got)
		}
		return
	}
	fail("no echo reply from %v", ip)
}

// rawPing sends an echo request to addr on a raw ICMP socket and waits for
// the reply with its identifier (a raw socket sees every ICMP message).
func rawPing(addr string) {
	c, err := net.ListenPacket("ip4:icmp", "0.0.0.0")
	check("listen ip4:icmp", err)
	defer c.Close()
	req := echoRequest(9, []byte("raw"))
	req[4], req[5] = 0x4a, 0x11
	cs := checksum(req)
	req[2], req[3] = byte(cs>>8), byte(cs)
	dst := &net.IPAddr{IP: net.ParseIP(addr)}
	buf := make([]byte, 200)
	for try := 0; try < 5; try++ {
		_, err = c.WriteTo(req, dst)
		check("raw write", err)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			n, from, err := c.ReadFrom(buf)
			if err != nil {
				break // timed out: send again
			}
			m := buf[:n]
			if n >= 8 && m[0] == 0 && m[4] == 0x4a && m[5] == 0x11 {
				if from.String() != addr || string(m[8:]) != "raw" {
					fail("raw echo reply %q from %v", m, from)
				}
				return
			}
		}
	}
	fail("no raw echo reply from %s", addr)
}

func icmpPhase() {
	r, err := os.ReadFile("/proc/sys/net/ipv4/ping_group_range")
	if err != nil || string(r) != "0\t2147483647\n" {
		fail("ping_group_range %q %v", r, err)
	}
	pingSocket([4]byte{127, 0, 0, 1})
	rawPing("127.0.0.1")
	pingSocket6(net.IPv6loopback)
	rawPing6("::1")
	// Only echo requests may be sent on a ping socket.
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, syscall.IPPROTO_ICMP)
	check("ping socket", err)
	if err := syscall.Sendto(fd, []byte{0, 0, 0, 0, 0, 0, 0, 0}, 0, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != syscall.EINVAL {
		fail("an echo reply sent on a ping socket: %v, want EINVAL", err)
	}
	syscall.Close(fd)
	fmt.Println("icmp: ping socket and raw socket echo on loopback (IPv4, IPv6) ok")
}

// pingSocket6 is pingSocket over IPv6 (the kernel writes the checksum).
func pingSocket6(ip net.IP) {
	fd, err := syscall.Socket(syscall.AF_INET6, syscall.SOCK_DGRAM, syscall.IPPROTO_ICMPV6)
	check("ping6 socket", err)
	defer syscall.Close(fd)
	tv := syscall.Timeval{Sec: 10}
	check("SO_RCVTIMEO", syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv))
	to := &syscall.SockaddrInet6{}
	copy(to.Addr[:], ip)
	req := []byte{128, 0, 0, 0, 0, 0, 0, 5, 'v', '6'}
	check("ping6 sendto", syscall.Sendto(fd, req, 0, to))
	buf := make([]byte, 200)
	n, from, err := syscall.Recvfrom(fd, buf, 0)
	check("ping6 recvfrom", err)
	f, ok := from.(*syscall.SockaddrInet6)
	if !ok || !net.IP(f.Addr[:]).Equal(ip) || n != len(req) || buf[0] != 129 || buf[7] != 5 || string(buf[8:n]) != "v6" {
		fail("ping6 reply % x from %v", buf[:n], from)
	}
}

// rawPing6 is rawPing over IPv6: no IP header either way, and the kernel
// writes the checksum.
func rawPing6(addr string) {
	c, err := net.ListenPacket("ip6:ipv6-icmp", "::")
	check("listen ip6:ipv6-icmp", err)
	defer c.Close()
	req := []byte{128, 0, 0, 0, 0x4a, 0x13, 0, 3, 'r', '6'}
	_, err = c.WriteTo(req, &net.IPAddr{IP: net.ParseIP(addr)})
	check("raw6 write", err)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 200)
	for {
		n, from, err := c.ReadFrom(buf)
		check("raw6 read", err)
		m := buf[:n]
		if n >= 8 && m[0] == 129 && m[4] == 0x4a && m[5] == 0x13 {
			if from.String() != addr || string(m[8:]) != "r6" {
				fail("raw6 echo reply %q from %v", m, from)
			}
			return
		}
	}
}
