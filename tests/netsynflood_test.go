package tests

// TestNetTapStress/.../synflood (netstress_test.go's boot): 20,000 SYNs in
// 2 s from addresses that never answer (the half-open connections pile
// up) while real connections are made, and after; each real client may
// dial again, as real ones do.

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func (r *stressRun) synFlood(t *testing.T) {
	var sent int
	var ferr error
	done := make(chan struct{})
	go func() {
		sent, ferr = r.ns.synFlood(20000, 10000, [4]byte{10, 77, 0, 2}, 7)
		close(done)
	}()
	// Without SYN cookies a real client's half-open entry can be pushed
	// out by the flood before its ACK is read (the connection is reset,
	// about 1 in 300): a client that dials again, as real ones do, must
	// get through within three tries, and every connection after the
	// flood must.
	served, lost, resets := 0, 0, 0
loop:
	for {
		select {
		case <-done:
			break loop
		default:
		}
		ok := false
		for try := 0; try < 3 && !ok; try++ {
			if err := r.fresh(fmt.Sprintf("during the flood (%d)\n", served+lost)); err != nil {
				t.Logf("during the flood: %v", err)
				resets++
			} else {
				ok = true
			}
		}
		if ok {
			served++
		} else {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("during the flood %d connections served, %d not served in three tries (%d resets)", served, lost, resets)
	}
	if ferr != nil {
		t.Fatalf("flood: %v", ferr)
	}
	for i := 0; i < 10; i++ {
		r.still(t, fmt.Sprintf("after the flood (%d)", i))
	}
	t.Logf("%d SYNs sent; during the flood %d connections served, %d resets retried", sent, served, resets)
}

// synFlood sends n SYNs to to:port from random addresses of 198.18.0.0/15
// (not on the tap's network: the guest's SYN-ACKs go to the namespace,
// which does not forward and drops them, so the connections stay
// half-open), about `rate` a second. It returns how many went out.
func (ns tapNS) synFlood(n, rate int, to [4]byte, port uint16) (int, error) {
	sent := 0
	err := ns.inNS(func() error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_RAW) // IP_HDRINCL
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		dst := &unix.SockaddrInet4{Addr: to}
		start := time.Now()
		for i := 0; i < n; i++ {
			var src [4]byte
			binary.BigEndian.PutUint32(src[:], 198<<24|18<<16|rand.Uint32N(1<<17))
			if unix.Sendto(fd, synPacket(src, to, uint16(1024+rand.IntN(60000)), port, rand.Uint32()), 0, dst) == nil {
				sent++
			}
			if ahead := time.Duration(i)*time.Second/time.Duration(rate) - time.Since(start); ahead > time.Millisecond {
				time.Sleep(ahead)
			}
		}
		return nil
	})
	return sent, err
}

// synPacket is an IPv4 TCP SYN (the kernel fills the IP checksum).
func synPacket(src, dst [4]byte, sport, dport uint16, seq uint32) []byte {
	p := make([]byte, 40)
	p[0], p[8], p[9] = 0x45, 64, unix.IPPROTO_TCP
	binary.BigEndian.PutUint16(p[2:], 40)
	copy(p[12:], src[:])
	copy(p[16:], dst[:])
	tcp := p[20:]
	binary.BigEndian.PutUint16(tcp[0:], sport)
	binary.BigEndian.PutUint16(tcp[2:], dport)
	binary.BigEndian.PutUint32(tcp[4:], seq)
	tcp[12], tcp[13] = 5<<4, 0x02
	binary.BigEndian.PutUint16(tcp[14:], 64240)
	sum := uint32(unix.IPPROTO_TCP) + 20
	for _, b := range [][]byte{src[:], dst[:], tcp} {
		for i := 0; i < len(b); i += 2 {
			sum += uint32(b[i])<<8 | uint32(b[i+1])
		}
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(tcp[16:], ^uint16(sum))
	return p
}
