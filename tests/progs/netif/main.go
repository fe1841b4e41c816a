// Test program netif: the network interfaces as Go's net package and
// rtnetlink clients see them (issue 23). With the argument "eth0" the
// machine has the network device (gometal run -net): lo and eth0 with
// slirp's addresses; with "lo" only loopback.
package main

import (
	"fmt"
	"net"
	"os"
	"slices"
	"syscall"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL netif: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	withEth := len(os.Args) > 1 && os.Args[1] == "eth0"
	checkInterfaces(withEth)
	checkRoutes(withEth)
	checkRawNetlink()
	fmt.Println("PASS netif")
}

func addrsOf(ifi *net.Interface) []string {
	addrs, err := ifi.Addrs()
	if err != nil {
		fail("%s: Addrs: %v", ifi.Name, err)
	}
	var out []string
	for _, a := range addrs {
		out = append(out, a.String())
	}
	slices.Sort(out)
	return out
}

func checkInterfaces(withEth bool) {
	ifs, err := net.Interfaces()
	if err != nil {
		fail("net.Interfaces: %v", err)
	}
	want := 1
	if withEth {
		want = 2
	}
	if len(ifs) != want {
		fail("net.Interfaces: %d interfaces %v, want %d", len(ifs), ifs, want)
	}
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		fail("InterfaceByName(lo): %v", err)
	}
	if lo.Index != 1 || lo.MTU != 65536 || lo.Flags != net.FlagUp|net.FlagLoopback|net.FlagRunning || len(lo.HardwareAddr) != 0 {
		fail("lo: %+v", *lo)
	}
	if a := addrsOf(lo); !slices.Equal(a, []string{"127.0.0.1/8", "::1/128"}) {
		fail("lo addresses %v", a)
	}
	fmt.Printf("netif: lo index %d mtu %d flags %v addrs %v\n", lo.Index, lo.MTU, lo.Flags, addrsOf(lo))
	if withEth {
		eth, err := net.InterfaceByIndex(2)
		if err != nil {
			fail("InterfaceByIndex(2): %v", err)
		}
		wantFlags := net.FlagUp | net.FlagBroadcast | net.FlagMulticast | net.FlagRunning
		if eth.Name != "eth0" || eth.MTU != 1500 || eth.Flags != wantFlags || eth.HardwareAddr.String() != "52:54:00:12:34:56" {
			fail("eth0: %+v", *eth)
		}
		if a := addrsOf(eth); !slices.Equal(a, []string{"10.0.2.15/24", "fec0::15/64"}) {
			fail("eth0 addresses %v", a)
		}
		fmt.Printf("netif: eth0 index %d mtu %d flags %v hw %v addrs %v\n", eth.Index, eth.MTU, eth.Flags, eth.HardwareAddr, addrsOf(eth))
	} else if _, err := net.InterfaceByName("eth0"); err == nil {
		fail("eth0 exists without the network device")
	}
	all, err := net.InterfaceAddrs()
	if err != nil || len(all) != 2*want {
		fail("InterfaceAddrs: %v %v", all, err)
	}
	fmt.Printf("netif: %d interfaces, %d addresses\n", len(ifs), len(all))
}

// checkRoutes: an RTM_GETROUTE dump parsed with the syscall package, as
// route libraries do.
func checkRoutes(withEth bool) {
	tab, err := syscall.NetlinkRIB(syscall.RTM_GETROUTE, syscall.AF_INET)
	if err != nil {
		fail("RTM_GETROUTE: %v", err)
	}
	msgs, err := syscall.ParseNetlinkMessage(tab)
	if err != nil {
		fail("routes: %v", err)
	}
	var defaultVia []byte
	routes := 0
	for _, m := range msgs {
		if m.Header.Type != syscall.RTM_NEWROUTE {
			continue
		}
		routes++
		rt := (*syscall.RtMsg)(unsafePointer(&m.Data[0]))
		attrs, err := syscall.ParseNetlinkRouteAttr(&m)
		if err != nil {
			fail("route attributes: %v", err)
		}
		if rt.Family != syscall.AF_INET {
			fail("an AF_INET dump has a route of family %d", rt.Family)
		}
		for _, a := range attrs {
			if rt.Dst_len == 0 && rt.Table == syscall.RT_TABLE_MAIN && a.Attr.Type == syscall.RTA_GATEWAY {
				defaultVia = a.Value
			}
		}
	}
	if withEth && net.IP(defaultVia).String() != "10.0.2.2" {
		fail("default route via %v (%d routes)", net.IP(defaultVia), routes)
	}
	if !withEth && defaultVia != nil {
		fail("a default route without the network device")
	}
	fmt.Printf("netif: %d IPv4 routes, default via %v\n", routes, net.IP(defaultVia))
}

// checkRawNetlink: errors and socket calls beyond what Go's net uses.
func checkRawNetlink() {
	if _, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW, 9); err != syscall.EPROTONOSUPPORT {
		fail("socket(NETLINK_AUDIT): %v, want EPROTONOSUPPORT", err)
	}
	s, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, syscall.NETLINK_ROUTE)
	if err != nil {
		fail("socket: %v", err)
	}
	defer syscall.Close(s)
	if err := syscall.Bind(s, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK, Pid: 4242}); err != nil {
		fail("bind to port 4242: %v", err)
	}
	sa, err := syscall.Getsockname(s)
	if nl, ok := sa.(*syscall.SockaddrNetlink); err != nil || !ok || nl.Pid != 4242 {
		fail("getsockname: %#v %v", sa, err)
	}
	// A change request is refused, in an NLMSG_ERROR, as for a program
	// without CAP_NET_ADMIN.
	req := []byte{32, 0, 0, 0, syscall.RTM_NEWLINK, 0, syscall.NLM_F_REQUEST | syscall.NLM_F_ACK, 0, 7, 0, 0, 0, 0, 0, 0, 0}
	req = append(req, make([]byte, 16)...)
	if err := syscall.Sendto(s, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		fail("sendto: %v", err)
	}
	buf := make([]byte, 4096)
	n, from, err := syscall.Recvfrom(s, buf, 0)
	if err != nil {
		fail("recvfrom: %v", err)
	}
	msgs, _ := syscall.ParseNetlinkMessage(buf[:n])
	if nl, ok := from.(*syscall.SockaddrNetlink); !ok || nl.Pid != 0 || len(msgs) != 1 || msgs[0].Header.Type != syscall.NLMSG_ERROR || msgs[0].Header.Seq != 7 {
		fail("reply to RTM_NEWLINK: from %#v, %d messages %+v", from, len(msgs), msgs)
	}
	if code := int32(msgs[0].Data[0]) | int32(msgs[0].Data[1])<<8 | int32(msgs[0].Data[2])<<16 | int32(msgs[0].Data[3])<<24; code != -int32(syscall.EPERM) {
		fail("RTM_NEWLINK: error %d, want -EPERM", code)
	}
	// One link by index, with an acknowledgement asked for: the link,
	// then NLMSG_ERROR 0.
	get := []byte{32, 0, 0, 0, syscall.RTM_GETLINK, 0, syscall.NLM_F_REQUEST | syscall.NLM_F_ACK, 0, 8, 0, 0, 0, 0, 0, 0, 0}
	get = append(get, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) // ifinfomsg, index 1
	syscall.Sendto(s, get, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK})
	var kinds []uint16
	for len(kinds) < 2 {
		n, _, err := syscall.Recvfrom(s, buf, 0)
		if err != nil {
			fail("recvfrom: %v", err)
		}
		msgs, _ := syscall.ParseNetlinkMessage(buf[:n])
		for _, m := range msgs {
			kinds = append(kinds, m.Header.Type)
			if m.Header.Type == syscall.NLMSG_ERROR && (m.Data[0] != 0 || m.Header.Seq != 8) {
				fail("acknowledgement: %+v", m)
			}
		}
	}
	if kinds[0] != syscall.RTM_NEWLINK || kinds[1] != syscall.NLMSG_ERROR {
		fail("RTM_GETLINK with NLM_F_ACK: messages %v", kinds)
	}
	if _, _, err := syscall.Recvfrom(s, buf, syscall.MSG_DONTWAIT); err != syscall.EAGAIN {
		fail("recvfrom with nothing queued: %v, want EAGAIN", err)
	}
	fmt.Println("netif: raw netlink ok")
}
