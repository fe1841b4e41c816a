package main

// -net and -p HOST:GUEST[/tcp|/udp]: the network device and published
// ports, as `docker run -p` publishes them.

import (
	"fmt"
	"strconv"
	"strings"

	"gometal.dev/gometal/internal/qemu"
)

const netUsage = "give the program a network device (virtio-net on QEMU's user-mode network: address 10.0.2.15, host 10.0.2.2, DNS 10.0.2.3)"

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

// qemuNet is the network device the flags ask for (nil: none).
func qemuNet(on bool, forwards []qemu.Forward) *qemu.Net {
	if !on && len(forwards) == 0 {
		return nil
	}
	return &qemu.Net{Forwards: forwards}
}
