// Test program uioconf: UIO conformance on QEMU's edu device, one binary
// for gometal (gometal run -device edu) and Linux (tools/uioconf boots
// Debian's kernel with uio and uio_pci_generic; as PID 1 on a system
// without /sys/class/uio this program mounts sysfs, loads the modules from
// /modules and binds the device first). Each check prints "ok NAME" or
// "FAIL NAME: why"; differences Linux allows print "note NAME: ...". It ends
// with interrupt round-trip latencies and "PASS uioconf" if nothing failed.
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"gometal.dev/gometal/internal/uioinit"
	"gometal.dev/gometal/uio"
	"gometal.dev/gometal/uio/edu"
)

const sys = "/sys/class/uio/uio0/"

var (
	failed  int
	onLinux bool // PID 1 on Linux: set UIO up first, power off at the end
)

func ok(name string) { fmt.Println("ok", name) }
func note(name, format string, a ...any) {
	fmt.Printf("note %s: %s\n", name, fmt.Sprintf(format, a...))
}
func fail(name, format string, a ...any) {
	failed++
	fmt.Printf("FAIL %s: %s\n", name, fmt.Sprintf(format, a...))
}
func check(name string, good bool, format string, a ...any) {
	if good {
		ok(name)
	} else {
		fail(name, format, a...)
	}
}

func text(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.TrimRight(string(b), "\n")
}

func main() {
	onLinux = uioinit.Needed()
	if onLinux {
		mods, err := uioinit.Linux("1234 11e8")
		if err != nil {
			fmt.Println("FAIL linux-setup:", err)
			finish()
		}
		fmt.Printf("linux: loaded %s, edu bound to uio_pci_generic\n", strings.Join(mods, ", "))
	}
	hex16 := regexp.MustCompile(`^0x[0-9a-f]{16}$`)
	check("name", text(sys+"name") == "uio_pci_generic", "name %q", text(sys+"name"))
	check("version", regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(text(sys+"version")), "version %q", text(sys+"version"))
	addr, size := text(sys+"maps/map0/addr"), text(sys+"maps/map0/size")
	check("map0-format", hex16.MatchString(addr) && hex16.MatchString(size), "addr %q size %q", addr, size)
	check("map0-size", size == "0x0000000000100000", "size %q, want edu's 1 MiB BAR0", size)
	note("map0-name", "%q", text(sys+"maps/map0/name"))

	d, err := uio.Open("uio0")
	if err != nil {
		fail("open", "%v", err)
		finish()
	}
	var cfg [16]byte
	err = d.ReadConfig(cfg[:], 0)
	check("config-ids", err == nil && binary.LittleEndian.Uint16(cfg[0:]) == 0x1234 && binary.LittleEndian.Uint16(cfg[2:]) == 0x11e8, "config %x, %v", cfg, err)
	bar, err := d.BARAddress(0)
	check("map0-is-bar0", err == nil && fmt.Sprintf("0x%016x", bar) == addr, "BAR0 %#x, map0 %s, %v", bar, addr, err)

	regs, err := d.Map(0)
	if err != nil {
		fail("mmap", "%v", err)
		finish()
	}
	check("mmap-id", regs.Read32(edu.RegID)&0xffff == 0xed, "id %#x", regs.Read32(edu.RegID))
	badMaps(d)
	interrupts(d, regs)
	latency(d, regs)
	finish()
}

func finish() {
	if failed == 0 {
		fmt.Println("PASS uioconf")
	} else {
		fmt.Printf("uioconf: %d checks failed\n", failed)
	}
	if onLinux {
		uioinit.PowerOff()
	}
	if failed > 0 {
		os.Exit(1)
	}
	os.Exit(0)
}

func badMaps(d *uio.Device) {
	fd, page := d.RawFd(), os.Getpagesize()
	for _, c := range []struct {
		name   string
		off    int64
		length int
	}{
		{"mmap-unaligned-offset", 100, page},
		{"mmap-no-such-map", 5 * int64(page), page},
		{"mmap-beyond-map", 0, 2 << 20},
	} {
		_, err := syscall.Mmap(fd, c.off, c.length, syscall.PROT_READ, syscall.MAP_SHARED)
		check(c.name, errors.Is(err, syscall.EINVAL), "%v, want EINVAL", err)
	}
}

// interrupts checks read/epoll/irqcontrol semantics.
func interrupts(d *uio.Device, regs *uio.Region) {
	fd := d.RawFd()
	var b [4]byte
	_, err := syscall.Read(fd, b[:3])
	check("read-size", errors.Is(err, syscall.EINVAL), "3-byte read: %v, want EINVAL", err)
	_, err = syscall.Read(fd, b[:])
	check("read-nothing-pending", errors.Is(err, syscall.EAGAIN), "%v, want EAGAIN", err)
	if err := irqWrite(d, 1); err != nil {
		note("irqcontrol", "write: %v (re-enable through device/config)", err)
	} else {
		note("irqcontrol", "supported")
	}
	check("enable", d.EnableInterrupts() == nil, "EnableInterrupts failed")

	ep, _ := syscall.EpollCreate1(0)
	defer syscall.Close(ep)
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | 1<<31, Fd: int32(fd)} // 1<<31: EPOLLET
	check("epoll-add", syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, fd, &ev) == nil, "epoll_ctl")
	before := text(sys + "event")
	regs.Write32(edu.RegIRQRaise, 1)
	evs := make([]syscall.EpollEvent, 4)
	n, err := syscall.EpollWait(ep, evs, 5000)
	check("epoll-edge", err == nil && n == 1 && evs[0].Events&syscall.EPOLLIN != 0, "n=%d %v", n, err)
	n, _ = syscall.EpollWait(ep, evs, 0)
	check("epoll-edge-once", n == 0, "the same edge reported again (%d)", n)
	_, err = syscall.Read(fd, b[:])
	count := binary.NativeEndian.Uint32(b[:])
	check("read-count", err == nil && fmt.Sprint(count) == text(sys+"event") && text(sys+"event") != before,
		"read %d (%v), event file %s, before %s", count, err, text(sys+"event"), before)

	// Masked until re-enabled: a second interrupt raised now stays pending.
	regs.Write32(edu.RegIRQAck, 1)
	regs.Write32(edu.RegIRQRaise, 1)
	time.Sleep(100 * time.Millisecond)
	_, err = syscall.Read(fd, b[:])
	check("masked-until-enabled", errors.Is(err, syscall.EAGAIN), "read %v, want EAGAIN", err)
	check("re-enable", d.EnableInterrupts() == nil, "EnableInterrupts")
	got, err := waitTimeout(d, 5*time.Second)
	check("pending-delivered", err == nil && got == count+1, "count %d after %d (%v)", got, count, err)
	regs.Write32(edu.RegIRQAck, 1)
	d.EnableInterrupts()
	syscall.EpollCtl(ep, syscall.EPOLL_CTL_DEL, fd, nil)
}

func waitTimeout(d *uio.Device, t time.Duration) (uint32, error) {
	type r struct {
		n   uint32
		err error
	}
	c := make(chan r, 1)
	go func() { n, err := d.Wait(); c <- r{n, err} }()
	select {
	case x := <-c:
		return x.n, x.err
	case <-time.After(t):
		return 0, errors.New("no interrupt")
	}
}

// latency: raise → the waiting goroutine runs → acknowledge → re-enable,
// 2000 times; the raise-to-wake time of each, p50/p99/max.
func latency(d *uio.Device, regs *uio.Region) {
	const n = 2000
	lat := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		regs.Write32(edu.RegIRQRaise, 1)
		if _, err := waitTimeout(d, 5*time.Second); err != nil {
			fail("latency", "%v", err)
			return
		}
		lat = append(lat, time.Since(start))
		regs.Write32(edu.RegIRQAck, 1)
		d.EnableInterrupts()
	}
	slices.Sort(lat)
	fmt.Printf("latency: %d interrupts, raise to goroutine p50 %v p99 %v max %v\n", n, lat[n/2], lat[n*99/100], lat[n-1])
}
