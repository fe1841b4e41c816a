package main

// Linux as /init has no init system: nothing brings the interfaces up.
// This does what gometal does by itself at boot: lo up, eth0 up with
// slirp's fixed address 10.0.2.15/24 and the default route via 10.0.2.2,
// with the classic ioctls (SIOCSIFADDR, SIOCSIFNETMASK, SIOCSIFFLAGS,
// SIOCADDRT) on an AF_INET datagram socket.

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"gometal.dev/gometal/bench/internal/guest"
)

const (
	siocADDRT      = 0x890B
	siocSIFADDR    = 0x8916
	siocSIFNETMASK = 0x891C
	rtfUp          = 0x1
	rtfGateway     = 0x2
)

func linuxNetwork() error {
	// The virtio_net driver probes when its module loads; give the
	// interface a moment to appear all the same.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat("/sys/class/net/eth0"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no eth0 after loading the modules")
		}
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	if err := guest.InterfaceUp(fd, "lo"); err != nil {
		return err
	}
	if err := ifreqAddr(fd, "eth0", siocSIFADDR, [4]byte{10, 0, 2, 15}); err != nil {
		return fmt.Errorf("SIOCSIFADDR: %v", err)
	}
	if err := ifreqAddr(fd, "eth0", siocSIFNETMASK, [4]byte{255, 255, 255, 0}); err != nil {
		return fmt.Errorf("SIOCSIFNETMASK: %v", err)
	}
	if err := guest.InterfaceUp(fd, "eth0"); err != nil {
		return err
	}
	// struct rtentry on a 64-bit kernel: rt_pad1 (8), rt_dst, rt_gateway,
	// rt_genmask (struct sockaddr, 16 each), rt_flags (u16) at 56, ...,
	// rt_dev (char *) at 88; 120 bytes in all.
	var rt [120]byte
	putSockaddr(rt[8:24], [4]byte{})
	putSockaddr(rt[24:40], [4]byte{10, 0, 2, 2})
	putSockaddr(rt[40:56], [4]byte{})
	binary.LittleEndian.PutUint16(rt[56:], rtfUp|rtfGateway)
	if err := guest.Ioctl(fd, siocADDRT, unsafe.Pointer(&rt[0])); err != nil {
		return fmt.Errorf("SIOCADDRT: %v", err)
	}
	return nil
}

func putSockaddr(b []byte, ip [4]byte) {
	binary.LittleEndian.PutUint16(b, syscall.AF_INET)
	copy(b[4:8], ip[:])
}

func ifreqAddr(fd int, name string, req uintptr, ip [4]byte) error {
	r := guest.NewIfreq(name)
	putSockaddr(r.Data[:16], ip)
	return guest.Ioctl(fd, req, unsafe.Pointer(r))
}
