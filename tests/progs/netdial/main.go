// Command netdial connects from the guest to a server on the host through
// the network device (-net): the host is 10.0.2.2 on QEMU's user network.
// It sends a line, prints what came back, checks its own and the peer's
// addresses and /etc/resolv.conf, and that a port nobody listens on
// refuses. Usage: netdial HOSTPORT CLOSEDPORT
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL netdial: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 3 {
		fail("usage: netdial HOSTPORT CLOSEDPORT")
	}
	c, err := net.DialTimeout("tcp", "10.0.2.2:"+os.Args[1], 20*time.Second)
	if err != nil {
		fail("dial: %v", err)
	}
	if l := c.LocalAddr().String(); !strings.HasPrefix(l, "10.0.2.15:") {
		fail("local address %s, want 10.0.2.15:port", l)
	}
	if r := c.RemoteAddr().String(); r != "10.0.2.2:"+os.Args[1] {
		fail("remote address %s", r)
	}
	if _, err := c.Write([]byte("ping from the guest\n")); err != nil {
		fail("write: %v", err)
	}
	c.(*net.TCPConn).CloseWrite()
	reply, err := io.ReadAll(c)
	if err != nil {
		fail("read: %v", err)
	}
	c.Close()
	fmt.Printf("netdial: got %q\n", reply)
	_, err = net.DialTimeout("tcp", "10.0.2.2:"+os.Args[2], 20*time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		fail("dial a closed port: %v, want connection refused", err)
	}
	conf, err := os.ReadFile("/etc/resolv.conf")
	if err != nil || string(conf) != "nameserver 10.0.2.3\n" {
		fail("/etc/resolv.conf: %q %v", conf, err)
	}
	fmt.Println("PASS netdial")
}
