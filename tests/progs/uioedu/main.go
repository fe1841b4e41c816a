// Test program uioedu: drives QEMU's edu PCI device through UIO (booted
// with -device edu): registers, the factorial unit, interrupts raised and
// acknowledged (irqcontrol and the PCI config-space way), DMA both ways,
// the edge-triggered netpoller path, and mmap's error cases.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"gometal.dev/gometal/uio"
	"gometal.dev/gometal/uio/edu"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL uioedu: "+format+"\n", a...)
	os.Exit(1)
}

func check(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

// waitIRQ waits for the next interrupt with a deadline, so a lost one
// fails the test instead of hanging it.
func waitIRQ(d *uio.Device, what string) uint32 {
	type res struct {
		n   uint32
		err error
	}
	c := make(chan res, 1)
	go func() { n, err := d.Wait(); c <- res{n, err} }()
	select {
	case r := <-c:
		check(r.err, what)
		return r.n
	case <-time.After(10 * time.Second):
		fail("%s: no interrupt in 10s", what)
	}
	return 0
}

func main() {
	d, err := uio.Open(edu.Spec)
	check(err, "open")
	fmt.Printf("uio%d %s: %d maps\n", d.Index, d.Name, len(d.Maps))
	regs, err := d.Map(0)
	check(err, "map BAR0")
	if id := regs.Read32(edu.RegID); id&0xffff != 0x00ed {
		fail("id register %#x, want 0x..ed", id)
	}
	regs.Write32(edu.RegLiveness, 0x12345678)
	if got := regs.Read32(edu.RegLiveness); got != ^uint32(0x12345678) {
		fail("liveness %#x", got)
	}
	fmt.Println("liveness ok")

	regs.Write32(edu.RegFactorial, 10)
	for regs.Read32(edu.RegStatus)&edu.StatusComputing != 0 {
	}
	if got := regs.Read32(edu.RegFactorial); got != 3628800 {
		fail("10! = %d", got)
	}
	fmt.Println("factorial ok: 10! = 3628800")

	interrupts(d, regs)
	factorialIRQ(d, regs)
	dma(d, regs)
	badMaps(d)
	fmt.Println("PASS uioedu")
}

// interrupts raises and acknowledges 200 interrupts: half re-enabled with
// irqcontrol, half through config space; counts must step by one.
func interrupts(d *uio.Device, regs *uio.Region) {
	fd := d.RawFd()
	var b [4]byte
	if _, err := syscall.Read(fd, b[:]); !errors.Is(err, syscall.EAGAIN) {
		fail("read with nothing pending: %v, want EAGAIN", err)
	}
	check(d.EnableInterrupts(), "irqcontrol 1")
	var last uint32
	start := time.Now()
	for i := range 200 {
		regs.Write32(edu.RegIRQRaise, 1)
		n := waitIRQ(d, "raised interrupt")
		if i > 0 && n != last+1 {
			fail("interrupt count %d after %d", n, last)
		}
		last = n
		if s := regs.Read32(edu.RegIRQStatus); s&1 == 0 {
			fail("irq status %#x after interrupt", s)
		}
		regs.Write32(edu.RegIRQAck, 1)
		if i%2 == 0 {
			check(d.EnableInterrupts(), "irqcontrol 1")
		} else {
			check(d.SetINTxDisabled(false), "config-space enable")
		}
	}
	fmt.Printf("interrupts ok: 200 raised and acknowledged (%v each)\n", time.Since(start)/200)

	// The channel form.
	counts, _ := d.Interrupts()
	regs.Write32(edu.RegIRQRaise, 1)
	select {
	case n := <-counts:
		if n != last+1 {
			fail("channel count %d after %d", n, last)
		}
	case <-time.After(10 * time.Second):
		fail("channel: no interrupt")
	}
	regs.Write32(edu.RegIRQAck, 1)
	check(d.EnableInterrupts(), "irqcontrol 1")
	fmt.Println("interrupt channel ok")
	// The goroutine behind the channel keeps reading: use a new device
	// handle for the rest.
}

func factorialIRQ(d0 *uio.Device, regs *uio.Region) {
	d, err := uio.Open(edu.Spec)
	check(err, "second open")
	regs.Write32(edu.RegStatus, edu.StatusIRQOnFact)
	regs.Write32(edu.RegFactorial, 12)
	waitIRQ(d, "factorial interrupt")
	if got := regs.Read32(edu.RegFactorial); got != 479001600 {
		fail("12! = %d", got)
	}
	regs.Write32(edu.RegIRQAck, regs.Read32(edu.RegIRQStatus))
	regs.Write32(edu.RegStatus, 0)
	check(d.EnableInterrupts(), "irqcontrol 1")
	fmt.Println("factorial interrupt ok: 12! = 479001600")
	_ = d0
	dmaDev = d
}

var dmaDev *uio.Device

func dma(_ *uio.Device, regs *uio.Region) {
	d := dmaDev
	mem, err := d.DMA()
	check(err, "DMA region")
	src, err := mem.Alloc(1024, 4096)
	check(err, "alloc src")
	dst, err := mem.Alloc(1024, 4096)
	check(err, "alloc dst")
	for i := range src.Bytes {
		src.Bytes[i] = byte(i*7 + 3)
	}
	run := func(from, to uint64, cmd uint64, what string) {
		regs.Write64(edu.RegDMASrc, from)
		regs.Write64(edu.RegDMADst, to)
		regs.Write64(edu.RegDMACount, 1024)
		regs.Write64(edu.RegDMACmd, cmd|edu.DMAStart|edu.DMAIRQ)
		waitIRQ(d, what)
		if s := regs.Read32(edu.RegIRQStatus); s&edu.IRQDMA == 0 {
			fail("%s: irq status %#x", what, s)
		}
		regs.Write32(edu.RegIRQAck, edu.IRQDMA)
		check(d.EnableInterrupts(), "irqcontrol 1")
	}
	run(src.Phys, edu.Buffer, 0, "DMA to the device")
	run(edu.Buffer, dst.Phys, edu.DMAToRAM, "DMA to RAM")
	if !bytes.Equal(src.Bytes, dst.Bytes) {
		fail("DMA round trip differs")
	}
	fmt.Printf("dma ok: 1024 bytes to the device and back (buffers at %#x, %#x)\n", src.Phys, dst.Phys)
}

// badMaps checks Linux's answers to mmaps UIO cannot give.
func badMaps(d *uio.Device) {
	fd := d.RawFd()
	page := os.Getpagesize()
	for _, c := range []struct {
		what   string
		off    int64
		length int
	}{
		{"offset not a page multiple", 100, page},
		{"no such map", int64(len(d.Maps)+3) * int64(page), page},
		{"longer than the map", int64(len(d.Maps)-1) * int64(page), int(d.Maps[len(d.Maps)-1].Size) + page},
	} {
		_, err := syscall.Mmap(fd, c.off, c.length, syscall.PROT_READ, syscall.MAP_SHARED)
		if !errors.Is(err, syscall.EINVAL) {
			fail("mmap %s: %v, want EINVAL", c.what, err)
		}
	}
	fmt.Println("bad mmaps ok: EINVAL")
}
