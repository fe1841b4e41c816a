// Command netv6 uses IPv6 through the network device (-net): the guest is
// fec0::15 on QEMU's user network and the host's loopback (::1) is
// fec0::2. It sends a line over TCP and a datagram over UDP to servers on
// the host, which answer in upper case, and checks the addresses on both
// ends. Usage: netv6 TCPPORT UDPPORT
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"strings"
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
	fmt.Println("PASS netv6")
}
