package tests

import (
	"net"
	"strconv"
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
	peer := make(chan error, 1)
	port := hostServer(t, func(c net.Conn) { peer <- trickle.Serve(c) })
	addr := "10.0.2.2:" + strconv.Itoa(port)
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
