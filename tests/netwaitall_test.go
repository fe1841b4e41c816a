package tests

import (
	"net"
	"strings"
	"testing"

	"gometal.dev/gometal/tests/internal/trickle"
)

// TestNetWaitAll: recv's MSG_WAITALL on a TCP connection through the
// device (`-net`, 1 CPU), whose reads come straight from smoltcp's
// buffers: tests/progs/waitall dials the host (10.0.2.2), whose peer
// (tests/internal/trickle) sends in pieces with pauses; the whole in one
// call, what came when SO_RCVTIMEO expires, the rest at end of file.
func TestNetWaitAll(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer := make(chan error, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			peer <- trickle.Serve(c)
		}
	}()
	addr := "10.0.2.2:" + strings.TrimPrefix(ln.Addr().String(), "127.0.0.1:")
	// One boot at a time: the host's peer serves them in turn.
	forArches(t, func(t *testing.T, a *arch) {
		out, status := bootMount(t, "-cores", "1", "-net", a.prog("waitall"), addr)
		if status != 0 || !strings.Contains(out, "waitall: device TCP ok") {
			t.Fatalf("status %d\n%s", status, out)
		}
		if err := <-peer; err != nil {
			t.Errorf("the host's peer: %v", err)
		}
	})
}
