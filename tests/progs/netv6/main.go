// Command netv6 uses IPv6 through the network device (-net): the guest is
// fec0::15 on QEMU's user network and the host's loopback (::1) is
// fec0::2. It sends a line over TCP and a datagram over UDP to servers on
// the host, which answer in upper case, checks the addresses on both
// ends, and pings fec0::2 on an ICMPv6 ping socket.
// Usage: netv6 TCPPORT UDPPORT
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL netv6: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 3 {
		fail("usage: netv6 TCPPORT UDPPORT")
	}
	host := "[fec0::2]:"
	c, err := net.DialTimeout("tcp6", host+os.Args[1], 20*time.Second)
	if err != nil {
		fail("dial tcp: %v", err)
	}
	if l := c.LocalAddr().String(); !strings.HasPrefix(l, "[fec0::15]:") {
		fail("tcp local address %s, want [fec0::15]:port", l)
	}
	if r := c.RemoteAddr().String(); r != host+os.Args[1] {
		fail("tcp remote address %s", r)
	}
	c.Write([]byte("tcp over ipv6\n"))
	c.(*net.TCPConn).CloseWrite()
	reply, err := io.ReadAll(c)
	if err != nil || string(reply) != "TCP OVER IPV6\n" {
		fail("tcp reply %q %v", reply, err)
	}
	c.Close()

	u, err := net.Dial("udp6", host+os.Args[2])
	if err != nil {
		fail("dial udp: %v", err)
	}
	if l := u.LocalAddr().String(); !strings.HasPrefix(l, "[fec0::15]:") {
		fail("udp local address %s, want [fec0::15]:port", l)
	}
	buf := make([]byte, 100)
	for try := 0; ; try++ {
		if try == 10 {
			fail("no udp reply")
		}
		u.Write([]byte("udp over ipv6"))
		u.SetReadDeadline(time.Now().Add(3 * time.Second))
		n, err := u.Read(buf)
		if err == nil {
			if string(buf[:n]) != "UDP OVER IPV6" {
				fail("udp reply %q", buf[:n])
			}
			break
		}
	}
	u.Close()
	ping6()
	fmt.Println("PASS netv6")
}

// ping6 sends ICMPv6 echo requests to fec0::2 (QEMU's user network
// answers for its own address) on a ping socket.
func ping6() {
	fd, err := syscall.Socket(syscall.AF_INET6, syscall.SOCK_DGRAM, syscall.IPPROTO_ICMPV6)
	if err != nil {
		fail("ping6 socket: %v", err)
	}
	defer syscall.Close(fd)
	tv := syscall.Timeval{Sec: 3}
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	to := &syscall.SockaddrInet6{Addr: [16]byte{0xfe, 0xc0, 15: 2}}
	req := []byte{128, 0, 0, 0, 0, 0, 0, 1, 'v', '6'}
	buf := make([]byte, 100)
	for try := 0; try < 5; try++ {
		if err := syscall.Sendto(fd, req, 0, to); err != nil {
			fail("ping6 sendto: %v", err)
		}
		n, from, err := syscall.Recvfrom(fd, buf, 0)
		if err == syscall.EAGAIN {
			continue
		}
		if f, _ := from.(*syscall.SockaddrInet6); err != nil || f == nil || f.Addr != to.Addr || n != len(req) || buf[0] != 129 || string(buf[8:n]) != "v6" {
			fail("ping6 reply % x from %v: %v", buf[:n], from, err)
		}
		return
	}
	fail("no ICMPv6 echo reply from fec0::2")
}
