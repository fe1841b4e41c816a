package guest

// Network interfaces for benchmarks booted as Linux's /init, where no init
// system brings anything up (gometal's loopback and device are up from
// boot, where these calls are harmless): the classic interface ioctls on
// an AF_INET datagram socket.

import (
	"encoding/binary"
	"fmt"
	"syscall"
	"unsafe"
)

const (
	siocGIFFLAGS = 0x8913
	siocSIFFLAGS = 0x8914
)

// Ifreq is struct ifreq: the name, then a 24-byte union.
type Ifreq struct {
	Name [16]byte
	Data [24]byte
}

// NewIfreq is an ifreq for interface name.
func NewIfreq(name string) *Ifreq {
	r := &Ifreq{}
	copy(r.Name[:15], name)
	return r
}

// Ioctl calls ioctl(2) on fd.
func Ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

// InterfaceUp sets IFF_UP and IFF_RUNNING on interface name through the
// AF_INET socket fd.
func InterfaceUp(fd int, name string) error {
	r := NewIfreq(name)
	if err := Ioctl(fd, siocGIFFLAGS, unsafe.Pointer(r)); err != nil {
		return fmt.Errorf("SIOCGIFFLAGS %s: %v", name, err)
	}
	flags := binary.LittleEndian.Uint16(r.Data[:]) | syscall.IFF_UP | syscall.IFF_RUNNING
	binary.LittleEndian.PutUint16(r.Data[:], flags)
	if err := Ioctl(fd, siocSIFFLAGS, unsafe.Pointer(r)); err != nil {
		return fmt.Errorf("SIOCSIFFLAGS %s: %v", name, err)
	}
	return nil
}

// LoopbackUp brings `lo` up (Linux as /init starts with it down).
func LoopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return InterfaceUp(fd, "lo")
}
