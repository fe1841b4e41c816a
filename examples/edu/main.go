// Command edu drives QEMU's educational PCI device ("edu") from Go through
// UIO: it checks the device is alive, computes factorials on it, has it
// raise interrupts and acknowledges them, and moves a buffer to the device
// and back by DMA. Run it with
//
//	gometal run -device edu ./examples/edu
//
// The same binary runs on Linux/riscv64 with uio_pci_generic bound to the
// device (docs/devices.md), except the DMA step: Linux's uio_pci_generic
// has no DMA map.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"time"

	"gometal.dev/gometal/uio"
)

// Registers of edu (QEMU's docs/specs/edu.txt).
const (
	regID        = 0x00
	regLiveness  = 0x04
	regFactorial = 0x08
	regStatus    = 0x20
	regIRQStatus = 0x24
	regIRQRaise  = 0x60
	regIRQAck    = 0x64
	regDMASrc    = 0x80
	regDMADst    = 0x88
	regDMACount  = 0x90
	regDMACmd    = 0x98
	eduBuffer    = 0x40000 // the device's 4 KiB buffer, as a DMA address

	statusComputing = 0x01
	dmaStart        = 1
	dmaToRAM        = 2
	dmaIRQ          = 4
	irqDMA          = 0x100
	dmaBytes        = 2048
)

// edu is the device with its registers mapped.
type edu struct {
	dev  *uio.Device
	regs *uio.Region
}

func main() {
	dev, err := uio.Open("pci:1234:11e8")
	if err != nil {
		log.Fatalf("edu: %v (run with: gometal run -device edu)", err)
	}
	regs, err := dev.Map(0)
	if err != nil {
		log.Fatal(err)
	}
	e := edu{dev, regs}
	id := regs.Read32(regID)
	fmt.Printf("edu %d.%d at /dev/uio%d, BAR0 at %#x\n", id>>24, id>>16&0xff, dev.Index, regs.Phys)

	regs.Write32(regLiveness, 0xcafe)
	fmt.Printf("liveness: wrote 0xcafe, read back %#x (its complement)\n", regs.Read32(regLiveness))

	for _, n := range []uint32{5, 10, 12} {
		fmt.Printf("factorial: %d! = %d\n", n, e.factorial(n))
	}
	e.interrupts(1000)
	if err := e.dma(); errors.Is(err, uio.ErrNoDMA) {
		fmt.Println("dma: skipped (no DMA map on this system)")
	} else if err != nil {
		log.Fatal(err)
	}
}

func (e edu) factorial(n uint32) uint32 {
	e.regs.Write32(regFactorial, n)
	for e.regs.Read32(regStatus)&statusComputing != 0 {
	}
	return e.regs.Read32(regFactorial)
}

// wait waits for the next interrupt and lets the device interrupt again
// after acknowledging `bits` at it.
func (e edu) wait(bits uint32) {
	if _, err := e.dev.Wait(); err != nil {
		log.Fatal(err)
	}
	if got := e.regs.Read32(regIRQStatus); got&bits == 0 {
		log.Fatalf("interrupt status %#x, want %#x", got, bits)
	}
	e.regs.Write32(regIRQAck, bits)
	if err := e.dev.EnableInterrupts(); err != nil {
		log.Fatal(err)
	}
}

// interrupts raises n interrupts one after another and reports the time
// from raising one to the goroutine waking for it.
func (e edu) interrupts(n int) {
	if err := e.dev.EnableInterrupts(); err != nil {
		log.Fatal(err)
	}
	start := time.Now()
	for range n {
		e.regs.Write32(regIRQRaise, 1)
		e.wait(1)
	}
	fmt.Printf("interrupts: %d raised and acknowledged, %v per round trip\n", n, time.Since(start)/time.Duration(n))
}

func (e edu) dma() error {
	mem, err := e.dev.DMA()
	if err != nil {
		return err
	}
	// QEMU 7.2's edu refuses a transfer of its whole 4 KiB buffer (its
	// range check is off by one): move half of it.
	out, err := mem.Alloc(dmaBytes, 4096)
	if err != nil {
		return err
	}
	back, err := mem.Alloc(dmaBytes, 4096)
	if err != nil {
		return err
	}
	copy(out.Bytes, bytes.Repeat([]byte("gometal DMA "), dmaBytes/12+1))
	e.transfer(out.Phys, eduBuffer, 0)
	e.transfer(eduBuffer, back.Phys, dmaToRAM)
	fmt.Printf("dma: %d bytes from %#x to the device and back to %#x: equal=%v\n",
		dmaBytes, out.Phys, back.Phys, bytes.Equal(out.Bytes, back.Bytes))
	return nil
}

func (e edu) transfer(src, dst uint64, dir uint64) {
	e.regs.Write64(regDMASrc, src)
	e.regs.Write64(regDMADst, dst)
	e.regs.Write64(regDMACount, dmaBytes)
	e.regs.Write64(regDMACmd, dir|dmaStart|dmaIRQ)
	e.wait(irqDMA)
}
