package main

// -net and -p HOST:GUEST[/tcp|/udp]: the network device and published
// ports, as `docker run -p` publishes them.

import (
	"flag"
	"fmt"
	"net"
	"strconv"
	"strings"

	"gometal.dev/gometal/internal/qemu"
)

const netUsage = "give the program a network device: -net alone is virtio-net on QEMU's user-mode network (address 10.0.2.15 and fec0::15, host 10.0.2.2, DNS 10.0.2.3; TCP, UDP and ICMP over IPv4 and IPv6); " +
	"-net=tap=IFNAME[,ip=A.B.C.D/P][,gw=A.B.C.D][,dns=A.B.C.D] puts it on the host's tap device IFNAME (vhost-net when /dev/vhost-net exists; the tap must exist, " +
	"e.g. made by: ip tuntap add IFNAME mode tap; made multi_queue, it gets a queue pair per CPU), with that address plan (gw= without dns= makes the gateway the DNS server), or without ip= with address, gateway and DNS from the network's DHCP server; -net tap=... works too"

const publishUsage = "publish a guest port on the host's 127.0.0.1: `HOST:GUEST[/tcp|/udp]` (repeatable; implies -net)"

// parsePublish checks one -p value.
func parsePublish(spec string) (qemu.Forward, error) {
	ports, proto, hasProto := strings.Cut(spec, "/")
	if !hasProto {
		proto = "tcp"
	}
	if proto != "tcp" && proto != "udp" {
		return qemu.Forward{}, fmt.Errorf("%q: protocol %q: want tcp or udp", spec, proto)
	}
	host, guest, ok := strings.Cut(ports, ":")
	if !ok {
		return qemu.Forward{}, fmt.Errorf("%q: want HOST:GUEST, e.g. 8080:80", spec)
	}
	h, err := parsePort(host)
	if err != nil {
		return qemu.Forward{}, fmt.Errorf("%q: host port: %v", spec, err)
	}
	g, err := parsePort(guest)
	if err != nil {
		return qemu.Forward{}, fmt.Errorf("%q: guest port: %v", spec, err)
	}
	return qemu.Forward{Proto: proto, Host: h, Guest: g}, nil
}

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("%q is not a port number (1 to 65535)", s)
	}
	return n, nil
}

// parsePublishes checks every -p value and that no host port is published
// twice for one protocol.
func parsePublishes(specs []string) ([]qemu.Forward, error) {
	var out []qemu.Forward
	seen := map[string]bool{}
	for _, spec := range specs {
		f, err := parsePublish(spec)
		if err != nil {
			return nil, err
		}
		key := fmt.Sprintf("%s/%d", f.Proto, f.Host)
		if seen[key] {
			return nil, fmt.Errorf("%q: host port %d/%s is already published", spec, f.Host, f.Proto)
		}
		seen[key] = true
		out = append(out, f)
	}
	return out, nil
}

// netFlag is -net: off, on (QEMU's user network), or a tap device with
// the guest's address plan. A bare -net is a boolean; -net=tap=IFNAME,...
// (or -net tap=..., joined by joinNetValue) names the tap.
type netFlag struct {
	on   bool
	tap  string // the host's tap device; "" for the user network
	plan string // ip=...,gw=...,dns=... as given (the kernel's net= option)
}

func (n *netFlag) IsBoolFlag() bool { return true }

func (n *netFlag) String() string {
	switch {
	case n == nil || !n.on:
		return ""
	case n.tap == "":
		return "user"
	case n.plan == "":
		return "tap=" + n.tap
	}
	return "tap=" + n.tap + "," + n.plan
}

// Set takes "true"/"false" (a bare -net), "user", or
// "tap=IFNAME[,ip=A.B.C.D/P][,gw=A.B.C.D][,dns=A.B.C.D]".
func (n *netFlag) Set(v string) error {
	switch v {
	case "true", "user":
		*n = netFlag{on: true}
		return nil
	case "false":
		*n = netFlag{}
		return nil
	}
	rest, ok := strings.CutPrefix(v, "tap=")
	if !ok {
		return fmt.Errorf("%q: want user or tap=IFNAME[,ip=A.B.C.D/P,gw=A.B.C.D,dns=A.B.C.D]", v)
	}
	name, plan, _ := strings.Cut(rest, ",")
	if name == "" || len(name) > 15 || strings.ContainsAny(name, ",= /") {
		return fmt.Errorf("%q: %q is not a network interface name", v, name)
	}
	if err := checkNetPlan(plan); err != nil {
		return fmt.Errorf("%q: %v", v, err)
	}
	if plan != "" && !strings.HasPrefix(plan, "ip=") && !strings.Contains(plan, ",ip=") {
		return fmt.Errorf("%q: gw= and dns= need ip= (without ip=, DHCP gives all three)", v)
	}
	*n = netFlag{on: true, tap: name, plan: plan}
	return nil
}

// checkNetPlan checks ip=A.B.C.D[/P], gw=A.B.C.D and dns=A.B.C.D items
// (what the kernel's net= option takes: kernel/core netplan.rs).
func checkNetPlan(plan string) error {
	if plan == "" {
		return nil
	}
	for _, item := range strings.Split(plan, ",") {
		k, v, _ := strings.Cut(item, "=")
		switch k {
		case "ip":
			addr, prefix, hasPrefix := strings.Cut(v, "/")
			if ip := net.ParseIP(addr); ip == nil || ip.To4() == nil {
				return fmt.Errorf("ip=%s: not an IPv4 address", v)
			}
			if hasPrefix {
				if p, err := strconv.Atoi(prefix); err != nil || p < 1 || p > 32 {
					return fmt.Errorf("ip=%s: prefix length 1 to 32", v)
				}
			}
		case "gw", "dns":
			if ip := net.ParseIP(v); ip == nil || ip.To4() == nil {
				return fmt.Errorf("%s=%s: not an IPv4 address", k, v)
			}
		default:
			return fmt.Errorf("%q: want ip=, gw= or dns=", item)
		}
	}
	return nil
}

// joinNetValue lets `-net tap=IFNAME,...` (a space, as other flags take
// their values) mean -net=tap=...: -net is also a boolean, which takes a
// value only after "=". It walks the flags as fs will parse them (a flag
// that is not a boolean takes the next word unless it has "="), so that
// words after the program name are left alone.
func joinNetValue(fs *flag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			return append(out, args[i:]...) // the flags end here
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "net" && !hasValue && i+1 < len(args) && strings.HasPrefix(args[i+1], "tap=") {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
		if f := fs.Lookup(name); f != nil && !hasValue && !isBoolFlag(f) && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// qemuNet is the network device the flags ask for (nil: none).
func qemuNet(n netFlag, forwards []qemu.Forward) *qemu.Net {
	if !n.on && len(forwards) == 0 {
		return nil
	}
	return &qemu.Net{Forwards: forwards, Tap: n.tap}
}

// netKernelOption is the kernel's net= option for the flag's address
// plan: "" on the user network (the kernel keeps its addresses), net=dhcp
// on a tap without ip= (the kernel asks the tap's network for a lease).
func netKernelOption(n netFlag) string {
	switch {
	case n.tap == "":
		return ""
	case n.plan == "":
		return "net=dhcp"
	}
	return "net=" + n.plan
}
