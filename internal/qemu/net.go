package qemu

// The network device (-net): virtio-net on QEMU's user-mode network.

import (
	"fmt"
	"os"
	"strconv"
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

// tunFlags is where the kernel shows a tap's flags (%s: its name).
var tunFlags = "/sys/class/net/%s/tun_flags"

// iffMultiQueue is IFF_MULTI_QUEUE in tun_flags: the tap was made with
// `ip tuntap add ... multi_queue`.
const iffMultiQueue = 0x100

// tapQueues is how many queues to open tap `name` with for a guest of
// `cores` CPUs: one per CPU when the tap is a multiqueue one, else one.
// A multiqueue tap takes only multiqueue opens (the host kernel refuses
// an open without IFF_MULTI_QUEUE, and QEMU asks for that only with
// queues > 1), so it gets at least 2 even for one CPU (the guest then
// uses one pair). A tap whose flags cannot be read (not in this network
// namespace yet, another OS) is taken as a single-queue one, as before.
func tapQueues(name string, cores int) int {
	raw, err := os.ReadFile(fmt.Sprintf(tunFlags, name))
	if err != nil {
		return 1
	}
	flags, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 0, 32)
	if err != nil || flags&iffMultiQueue == 0 {
		return 1
	}
	return max(cores, 2)
}

// netArgs are the -netdev/-device pair for n (none for nil) on transport
// t for a guest of `cores` CPUs. Published ports listen on the host's
// loopback address only. A multiqueue tap gets a queue pair per CPU
// (`queues=N` on the -netdev, `mq=on` on the device; on PCI also vectors
// for each queue, the config and the control queue, as Linux wants).
func netArgs(n *Net, t machine.Transport, cores int) []string {
	if n == nil {
		return nil
	}
	var b strings.Builder
	if n.Tap != "" {
		fmt.Fprintf(&b, "tap,id=net0,ifname=%s,script=no,downscript=no", n.Tap)
		q := tapQueues(n.Tap, cores)
		if q > 1 {
			fmt.Fprintf(&b, ",queues=%d", q)
		}
		if _, err := os.Stat(vhostNet); err == nil {
			b.WriteString(",vhost=on")
		}
		dev := t.Device("virtio-net") + ",netdev=net0"
		if q > 1 {
			dev += ",mq=on"
			if t == machine.VirtioPCI {
				dev += fmt.Sprintf(",vectors=%d", 2*q+2)
			}
		}
		return []string{"-netdev", b.String(), "-device", dev}
	}
	b.WriteString("user,id=net0")
	for _, f := range n.Forwards {
		fmt.Fprintf(&b, ",hostfwd=%s:127.0.0.1:%d-:%d", f.Proto, f.Host, f.Guest)
	}
	return []string{"-netdev", b.String(), "-device", t.Device("virtio-net") + ",netdev=net0"}
}
