package tests

import (
	"strings"
	"testing"
)

// TestNetInterfaces: net.Interfaces, net.InterfaceAddrs, an rtnetlink
// route dump and raw netlink calls (issue 23), with the network device
// (lo and eth0 with slirp's addresses and the device's MAC) and without
// it (lo alone).
func TestNetInterfaces(t *testing.T) { parallelArches(t, testNetInterfaces) }

func testNetInterfaces(t *testing.T, a *arch) {
	t.Parallel()
	for _, c := range []struct {
		flags []string
		arg   string
		want  string
	}{
		{[]string{"-cores", "1", "-net"}, "eth0", "netif: eth0 index 2 mtu 1500 flags up|broadcast|multicast|running hw 52:54:00:12:34:56 addrs [10.0.2.15/24 fec0::15/64]"},
		{[]string{"-cores", "2"}, "lo", "netif: 1 interfaces, 2 addresses"},
	} {
		out, status := bootMount(t, append(c.flags, a.prog("netif"), c.arg)...)
		if status != 0 || !hasLine(out, "PASS netif") || !strings.Contains(out, c.want) {
			t.Errorf("%v: status %d, want a line %q\n%s", c.flags, status, c.want, out)
		}
	}
}
