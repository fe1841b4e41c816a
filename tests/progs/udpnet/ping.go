// ICMP echo through the network device: QEMU's user network answers
// echo requests to its own addresses (10.0.2.2).
package main

import (
	"bytes"
	"fmt"
	"net"
	"syscall"
	"time"
)

func checksum(b []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// ping sends echo requests to 10.0.2.2 on a ping socket and on a raw ICMP
// socket, and waits for the replies.
func ping() {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, syscall.IPPROTO_ICMP)
	if err != nil {
		fail("ping socket: %v", err)
	}
	tv := syscall.Timeval{Sec: 3}
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	gw := [4]byte{10, 0, 2, 2}
	req := []byte{8, 0, 0, 0, 0, 0, 0, 1, 'h', 'i'}
	ok := false
	for try := 0; try < 5 && !ok; try++ {
		if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrInet4{Addr: gw}); err != nil {
			fail("ping sendto: %v", err)
		}
		buf := make([]byte, 100)
		n, from, err := syscall.Recvfrom(fd, buf, 0)
		if err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			fail("ping recvfrom: %v", err)
		}
		if f, _ := from.(*syscall.SockaddrInet4); f == nil || f.Addr != gw || n != 10 || buf[0] != 0 || string(buf[8:n]) != "hi" {
			fail("ping reply % x from %v", buf[:n], from)
		}
		ok = true
	}
	syscall.Close(fd)
	if !ok {
		fail("no echo reply from 10.0.2.2 on a ping socket")
	}
	c, err := net.ListenPacket("ip4:icmp", "0.0.0.0")
	if err != nil {
		fail("listen ip4:icmp: %v", err)
	}
	defer c.Close()
	raw := []byte{8, 0, 0, 0, 0x4a, 0x12, 0, 2, 'r', 'a', 'w'}
	cs := checksum(raw)
	raw[2], raw[3] = byte(cs>>8), byte(cs)
	buf := make([]byte, 200)
	for try := 0; try < 5; try++ {
		if _, err := c.WriteTo(raw, &net.IPAddr{IP: net.IPv4(10, 0, 2, 2)}); err != nil {
			fail("raw write: %v", err)
		}
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		for {
			n, from, err := c.ReadFrom(buf)
			if err != nil {
				break
			}
			if n >= 8 && buf[0] == 0 && bytes.Equal(buf[4:6], raw[4:6]) {
				if from.String() != "10.0.2.2" || string(buf[8:n]) != "raw" {
					fail("raw echo reply %q from %v", buf[:n], from)
				}
				fmt.Println("udpnet: ping 10.0.2.2 ok (ping socket, raw socket)")
				return
			}
		}
	}
	fail("no echo reply from 10.0.2.2 on a raw socket")
}
