package qemu

// The network device (-net): virtio-net on QEMU's user-mode network.

import (
	"fmt"
	"os"
	"strings"

	"gometal.dev/gometal/internal/machine"
)

// Forward publishes a guest port on the host, as `docker run -p` does:
// connections (or datagrams) to 127.0.0.1:Host reach the guest's Guest.
type Forward struct {
	Proto string // "tcp" or "udp"
	Host  int
	Guest int
}

// Net gives the guest a virtio-net device on QEMU's user-mode network
// (slirp: the guest is 10.0.2.15/24, the host 10.0.2.2, DNS 10.0.2.3), or,
// with Tap, on the host's tap device of that name (which must exist; QEMU
// runs no script on it). Forwards apply to the user network only.
type Net struct {
	Forwards []Forward
	Tap      string
}

// vhostNet is where the host's vhost-net device would be.
var vhostNet = "/dev/vhost-net"

// netArgs are the -netdev/-device pair for n (none for nil) on transport
// t. Published ports listen on the host's loopback address only.
func netArgs(n *Net, t machine.Transport) []string {
	if n == nil {
		return nil
	}
	var b strings.Builder
	if n.Tap != "" {
		fmt.Fprintf(&b, "tap,id=net0,ifname=%s,script=no,downscript=no", n.Tap)
		if _, err := os.Stat(vhostNet); err == nil {
			b.WriteString(",vhost=on")
		}
		return []string{"-netdev", b.String(), "-device", t.Device("virtio-net") + ",netdev=net0"}
	}
	b.WriteString("user,id=net0")
	for _, f := range n.Forwards {
		fmt.Fprintf(&b, ",hostfwd=%s:127.0.0.1:%d-:%d", f.Proto, f.Host, f.Guest)
	}
	return []string{"-netdev", b.String(), "-device", t.Device("virtio-net") + ",netdev=net0"}
}
