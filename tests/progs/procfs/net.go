package main

import (
	"fmt"
	"net"
	"strings"
)

// checkNet: a listener and a UDP socket the program opened appear in
// /proc/net/tcp, tcp6 and udp as procfs's parsers read them; dev, route
// and snmp have their layouts.
func checkNet() {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fail("%v", err)
	}
	defer ln.Close()
	ln6, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		fail("%v", err)
	}
	defer ln6.Close()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		fail("%v", err)
	}
	defer pc.Close()
	find := func(file, local, state string) {
		lines := strings.Split(strings.TrimSpace(read(file)), "\n")
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			if len(f) < 10 {
				fail("%s: %q", file, l)
			}
			if f[1] == local && f[3] == state {
				return
			}
		}
		fail("%s: no %s in state %s:\n%s", file, local, state, strings.Join(lines, "\n"))
	}
	find("/proc/net/tcp", fmt.Sprintf("0100007F:%04X", ln.Addr().(*net.TCPAddr).Port), "0A")
	find("/proc/net/tcp6", fmt.Sprintf("00000000000000000000000001000000:%04X", ln6.Addr().(*net.TCPAddr).Port), "0A")
	find("/proc/net/udp", fmt.Sprintf("0100007F:%04X", pc.LocalAddr().(*net.UDPAddr).Port), "07")
	read("/proc/net/udp6")
	if dev := read("/proc/net/dev"); !strings.Contains(dev, "    lo: ") {
		fail("net/dev: %q", dev)
	}
	if r := read("/proc/net/route"); !strings.HasPrefix(r, "Iface\tDestination\tGateway") {
		fail("net/route: %q", r)
	}
	snmp := strings.Split(strings.TrimSpace(read("/proc/net/snmp")), "\n")
	for i := 0; i+1 < len(snmp); i += 2 {
		names, values := strings.Fields(snmp[i]), strings.Fields(snmp[i+1])
		if len(names) != len(values) || names[0] != values[0] {
			fail("net/snmp: %q / %q", snmp[i], snmp[i+1])
		}
	}
	fmt.Println("procfs: net/tcp, tcp6, udp, dev, route, snmp ok")
}
