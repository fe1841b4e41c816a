// Command udpnet exercises UDP (and ICMP echo) through the network device
// (-net): it echoes datagrams that come to its published port from the
// host, and sends datagrams to an echo server on the host (10.0.2.2 on
// QEMU's user network), connected and unconnected; a connected socket
// learns ECONNREFUSED from a host port nobody holds, resolves a name
// through QEMU's DNS forwarder; then ICMP echo. It
// ends when a datagram "quit" arrives on its port.
// Usage: udpnet GUESTPORT HOSTPORT CLOSEDPORT
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL udpnet: "+format+"\n", args...)
	os.Exit(1)
}

// roundTrip sends msg on c to `to` (nil: c is connected) and waits for the
// echo, sending again after a silence (UDP may lose a datagram).
func roundTrip(c net.PacketConn, to net.Addr, msg []byte) {
	buf := make([]byte, 2048)
	for try := 0; try < 10; try++ {
		var err error
		if to == nil {
			_, err = c.(net.Conn).Write(msg)
		} else {
			_, err = c.WriteTo(msg, to)
		}
		if err != nil {
			fail("send %q: %v", msg, err)
		}
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			continue
		}
		if to != nil && from.String() != to.String() {
			fail("reply from %v, want %v", from, to)
		}
		if !bytes.Equal(buf[:n], msg) {
			fail("echo %q, want %q", buf[:n], msg)
		}
		return
	}
	fail("no echo of %q", msg)
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: udpnet GUESTPORT HOSTPORT CLOSEDPORT")
	}
	srv, err := net.ListenPacket("udp", ":"+os.Args[1])
	if err != nil {
		fail("listen: %v", err)
	}
	quit := make(chan struct{})
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := srv.ReadFrom(buf)
			if err != nil {
				fail("read on the published port: %v", err)
			}
			if string(buf[:n]) == "quit" {
				close(quit)
				return
			}
			srv.WriteTo(buf[:n], from)
		}
	}()
	fmt.Println("udpnet: listening")

	host := "10.0.2.2:" + os.Args[2]
	// Connected: Go's net.Dial, as its DNS resolver uses it.
	c, err := net.Dial("udp", host)
	if err != nil {
		fail("dial %s: %v", host, err)
	}
	if l := c.LocalAddr().String(); !strings.HasPrefix(l, "10.0.2.15:") {
		fail("connected local address %s, want 10.0.2.15:port", l)
	}
	for i := 0; i < 20; i++ {
		roundTrip(c.(net.PacketConn), nil, []byte(fmt.Sprintf("datagram %d to the host", i)))
	}
	roundTrip(c.(net.PacketConn), nil, bytes.Repeat([]byte("x"), 1472)) // a full frame
	if _, err := c.Write(make([]byte, 1473)); err == nil {
		fail("a datagram larger than one frame was sent")
	}
	c.Close()
	// Unconnected: WriteTo and ReadFrom with addresses.
	u, err := net.ListenPacket("udp", ":0")
	if err != nil {
		fail("listen: %v", err)
	}
	to, _ := net.ResolveUDPAddr("udp", host)
	roundTrip(u, to, []byte("unconnected"))
	u.Close()
	refused()
	dns()
	fmt.Println("udpnet: guest to host ok")
	ping()
	<-quit
	fmt.Println("PASS udpnet")
}

// refused: the host answers a datagram to a closed port with ICMP port
// unreachable (QEMU's user network passes it on), which a connected
// socket reports as ECONNREFUSED.
func refused() {
	c, err := net.Dial("udp", "10.0.2.2:"+os.Args[3])
	if err != nil {
		fail("dial: %v", err)
	}
	defer c.Close()
	for try := 0; try < 5; try++ {
		c.Write([]byte("anyone?"))
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		_, err = c.Read(make([]byte, 10))
		if errors.Is(err, syscall.ECONNREFUSED) {
			return
		}
	}
	fail("udp to a closed host port: %v, want ECONNREFUSED", err)
}

// dns asks Go's own resolver (UDP to 10.0.2.3, QEMU's forwarder to the
// host's DNS) for a name that cannot exist: an answer ("not found") shows
// the queries and replies crossed the device; the test compares it with
// what the host's resolver says.
func dns() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := &net.Resolver{PreferGo: true}
	_, err := r.LookupHost(ctx, "gometal-test.invalid")
	var de *net.DNSError
	if errors.As(err, &de) && de.IsNotFound {
		fmt.Println("udpnet: dns: not found")
	} else {
		fmt.Printf("udpnet: dns: %v\n", err)
	}
}
