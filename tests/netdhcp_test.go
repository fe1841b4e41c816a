package tests

// DHCP on a tap: `-net tap=IFNAME` without ip= has the kernel ask the
// tap's network for a lease at boot (kernel net/nic/dhcp.rs). The test's
// namespace runs a DHCP server of its own (dhcpServe, below: the few
// lines of RFC 2131 a client needs, so no dnsmasq is required), and the
// program must be reachable at the leased address. The lease is short (4
// s: renewed every 2 s); then the server gives another address at
// renewal, which the kernel must take (and the program be reachable
// there), and then answers nothing, so the lease expires and is lost.

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

// dhcpLeaseSecs is how long dhcpServe's leases last.
const dhcpLeaseSecs = 4

// dhcpServe answers DISCOVER with OFFER and REQUEST (first or renewal)
// with ACK for the address in `lease` (prefix /24, router and DNS server
// `server`, dhcpLeaseSecs), broadcast on gmtap0, until conn is closed; it
// counts the ACKs. While `lease` is 0.0.0.0 it answers nothing.
func dhcpServe(conn net.PacketConn, server [4]byte, lease *atomic.Uint32, acks *atomic.Int32) {
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
		var addr [4]byte
		binary.BigEndian.PutUint32(addr[:], lease.Load())
		if reply == 0 || addr == [4]byte{} {
			continue
		}
		p := make([]byte, 240, 300)
		p[0], p[1], p[2] = 2, 1, 6
		copy(p[4:8], req[4:8])     // xid
		copy(p[10:12], req[10:12]) // flags
		copy(p[16:20], addr[:])    // yiaddr
		copy(p[20:24], server[:])  // siaddr
		copy(p[28:44], req[28:44]) // chaddr
		binary.BigEndian.PutUint32(p[236:], 0x63825363)
		p = append(p, 53, 1, reply, 54, 4)
		p = append(p, server[:]...)
		p = append(p, 51, 4, 0, 0, 0, dhcpLeaseSecs, 1, 4, 255, 255, 255, 0, 3, 4)
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
	var lease atomic.Uint32
	lease.Store(10<<24 | 77<<16 | 50)
	go dhcpServe(conn, [4]byte{10, 77, 0, 1}, &lease, &acks)
	start := time.Now()
	s := ns.boot(t, "", []string{"-cores", "1"}, "tcpecho: listening", a.prog("tcpecho"))
	out := s.output()
	if !strings.Contains(out, "gometal: net: DHCP lease 10.77.0.50/24 from server 10.77.0.1 in ") ||
		!strings.Contains(out, "address 10.77.0.50/24 and fec0::15/64, gateway 10.77.0.1, DNS 10.77.0.1") || acks.Load() == 0 {
		t.Fatalf("no lease line or plan (%d ACKs sent):\n%s", acks.Load(), out)
	}
	echoAt := func(addr string) {
		t.Helper()
		c, err := ns.dial(addr + ":7")
		if err != nil {
			t.Fatalf("the leased address %s: %v\n%s", addr, err, s.output())
		}
		data := []byte("served at " + addr)
		if back, err := echoConn(c, data); err != nil || !bytes.Equal(back, data) {
			t.Fatalf("echo at %s: %q %v", addr, back, err)
		}
	}
	echoAt("10.77.0.50")
	t.Logf("leased, booted and echoed in %v", time.Since(start).Round(time.Millisecond))

	// Renewals of the same lease change nothing; one that brings another
	// address moves the program there.
	time.Sleep(dhcpLeaseSecs * time.Second / 2)
	if strings.Contains(s.output(), "(was ") {
		t.Fatalf("a renewal of the same lease was taken as a change:\n%s", s.output())
	}
	lease.Store(10<<24 | 77<<16 | 51)
	if !waitOutput(s, `gometal: net: DHCP lease 10\.77\.0\.51/24 from server 10\.77\.0\.1 \(was 10\.77\.0\.50/24\), gateway 10\.77\.0\.1, DNS 10\.77\.0\.1`, 4*dhcpLeaseSecs*time.Second) {
		t.Fatalf("the renewal's new address was not taken:\n%s", s.output())
	}
	echoAt("10.77.0.51")
	// The server goes quiet: the lease expires.
	lease.Store(0)
	if !waitOutput(s, `gometal: net: DHCP lease 10\.77\.0\.51/24 lost: the device has no IPv4 address`, 4*dhcpLeaseSecs*time.Second) {
		t.Fatalf("the lost lease was not noticed:\n%s", s.output())
	}
	t.Logf("moved and lost in %v", time.Since(start).Round(time.Millisecond))
}
