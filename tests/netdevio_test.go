package tests

import (
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNetDeviceIO: a TCP connection through the device, with reads and
// writes that go straight to smoltcp's buffers (kernel/src/net/nic/rx.rs,
// tx.rs), keeps what the pipes gave it: MSG_PEEK, FIONREAD, SO_RCVTIMEO,
// non-blocking reads, shutdown(SHUT_WR) (the host sees end of file, a
// later write is EPIPE) and end of file after the host's last bytes.
func TestNetDeviceIO(t *testing.T) {
	t.Parallel()
	got := make(chan string, 2)
	port := hostServer(t, func(c net.Conn) {
		c.Write([]byte("hello world"))
		c.SetReadDeadline(time.Now().Add(60 * time.Second))
		b, _ := io.ReadAll(c)
		got <- string(b)
		c.Write([]byte("bye"))
		c.Close()
	})
	// One boot at a time: the host's side answers them in turn.
	forArches(t, func(t *testing.T, a *arch) {
		for _, cores := range []int{1, 4} {
			out, status := bootMount(t, "-cores", strconv.Itoa(cores), "-net", a.prog("netdevio"), strconv.Itoa(port))
			if status != 0 || !strings.Contains(out, "PASS netdevio") {
				t.Fatalf("smp%d: status %d\n%s", cores, status, out)
			}
			if g := <-got; g != "ping" {
				t.Errorf("smp%d: the host read %q, want \"ping\"", cores, g)
			}
		}
	})
}

// hostServer listens on the host's loopback (10.0.2.2 to a guest on
// QEMU's user network) until the test ends, and runs serve on each
// connection in turn; it returns the port.
func hostServer(t *testing.T, serve func(net.Conn)) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			serve(c)
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}
