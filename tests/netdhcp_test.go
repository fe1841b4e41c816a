package tests

// DHCP on a tap: `-net tap=IFNAME` without ip= has the kernel ask the
// tap's network for a lease at boot (kernel net/nic/dhcp.rs). The test's
// namespace runs a DHCP server of its own (dhcpServe, below: the few
// lines of RFC 2131 a client needs, so no dnsmasq is required), and the
// program must be reachable at the leased address.

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// dhcpServe answers DISCOVER with OFFER and REQUEST with ACK for `lease`
// (prefix /24, router and DNS server `server`, an hour), broadcast on
// gmtap0, until conn is closed; it counts the ACKs.
func dhcpServe(conn net.PacketConn, server, lease [4]byte, acks *atomic.Int32) {
	buf := make([]byte, 1500)
	for {
		n, _, err := conn.ReadFrom(buf)
		if err != nil {
			return
		}
		req := buf[:n]
		if n < 240 || req[0] != 1 || binary.BigEndian.Uint32(req[236:]) != 0x63825363 {
			continue
		}
		var kind byte
		for o := req[240:]; len(o) >= 2 && o[0] != 255; o = o[2+int(o[1]):] {
			if o[0] == 53 && o[1] == 1 && len(o) >= 3 {
				kind = o[2]
			}
			if len(o) < 2+int(o[1]) {
				break
			}
		}
		reply := map[byte]byte{1: 2, 3: 5}[kind] // DISCOVER → OFFER, REQUEST → ACK
		if reply == 0 {
			continue
		}
		p := make([]byte, 240, 300)
		p[0], p[1], p[2] = 2, 1, 6
		copy(p[4:8], req[4:8])     // xid
		copy(p[10:12], req[10:12]) // flags
		copy(p[16:20], lease[:])   // yiaddr
		copy(p[20:24], server[:])  // siaddr
		copy(p[28:44], req[28:44]) // chaddr
		binary.BigEndian.PutUint32(p[236:], 0x63825363)
		p = append(p, 53, 1, reply, 54, 4)
		p = append(p, server[:]...)
		p = append(p, 51, 4, 0, 0, 0x0e, 0x10, 1, 4, 255, 255, 255, 0, 3, 4)
		p = append(p, server[:]...)
		p = append(p, 6, 4)
		p = append(p, server[:]...)
		p = append(p, 255)
		if _, err := conn.WriteTo(p, &net.UDPAddr{IP: net.IPv4bcast, Port: 68}); err == nil && reply == 5 {
			acks.Add(1)
		}
	}
}

func TestNetTapDHCP(t *testing.T) { parallelArches(t, testNetTapDHCP) }

func testNetTapDHCP(t *testing.T, a *arch) {
	t.Parallel()
	ns := newTapNS(t)
	var conn net.PacketConn
	err := ns.inNS(func() (err error) {
		lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
			var serr error
			c.Control(func(fd uintptr) {
				if serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_BROADCAST, 1); serr == nil {
					serr = syscall.BindToDevice(int(fd), "gmtap0")
				}
			})
			return serr
		}}
		conn, err = lc.ListenPacket(context.Background(), "udp4", "0.0.0.0:67")
		return err
	})
	if err != nil {
		t.Fatalf("DHCP server: %v", err)
	}
	defer conn.Close()
	var acks atomic.Int32
	go dhcpServe(conn, [4]byte{10, 77, 0, 1}, [4]byte{10, 77, 0, 50}, &acks)
	start := time.Now()
	s := ns.boot(t, "", []string{"-cores", "1"}, "tcpecho: listening", a.prog("tcpecho"))
	out := s.output()
	if !strings.Contains(out, "gometal: net: DHCP lease 10.77.0.50/24 from server 10.77.0.1 in ") ||
		!strings.Contains(out, "address 10.77.0.50/24 and fec0::15/64, gateway 10.77.0.1, DNS 10.77.0.1") || acks.Load() == 0 {
		t.Fatalf("no lease line or plan (%d ACKs sent):\n%s", acks.Load(), out)
	}
	c, err := ns.dial("10.77.0.50:7")
	if err != nil {
		t.Fatalf("the leased address: %v\n%s", err, out)
	}
	data := []byte("served at the leased address")
	if back, err := echoConn(c, data); err != nil || !bytes.Equal(back, data) {
		t.Fatalf("echo: %q %v", back, err)
	}
	t.Logf("leased, booted and echoed in %v", time.Since(start).Round(time.Millisecond))
}
