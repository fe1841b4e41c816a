// Command netkeep holds an idle TCP connection to a server on the host
// (10.0.2.2 on QEMU's user network) with one-second keep-alive, sleeps,
// then uses the connection: while it sleeps nothing in the guest polls the
// network stack, so the keep-alive probes go out only if the kernel runs
// the stack's timers by itself (tests/net_test.go reads the kernel's
// network statistics). Usage: netkeep HOSTPORT
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL netkeep: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: netkeep HOSTPORT")
	}
	d := net.Dialer{Timeout: 20 * time.Second, KeepAlive: time.Second}
	c, err := d.Dial("tcp", "10.0.2.2:"+os.Args[1])
	if err != nil {
		fail("dial: %v", err)
	}
	time.Sleep(3500 * time.Millisecond) // three keep-alive intervals, idle
	if _, err := c.Write([]byte("still here\n")); err != nil {
		fail("write: %v", err)
	}
	c.(*net.TCPConn).CloseWrite()
	reply, err := io.ReadAll(c)
	if err != nil {
		fail("read: %v", err)
	}
	c.Close()
	if string(reply) != "STILL HERE\n" {
		fail("reply %q", reply)
	}
	fmt.Println("PASS netkeep")
}
