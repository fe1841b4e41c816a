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
	"gometal.dev/gometal/uio/edu"
)

// QEMU 7.2's edu refuses a transfer of its whole 4 KiB buffer (its range
// check is off by one): move half of it.
const dmaBytes = 2048

// device is the edu driver (package uio/edu) with this example's waits.
type device struct{ *edu.Edu }

func main() {
	d, err := edu.Open()
	if err != nil {
		log.Fatalf("edu: %v (run with: gometal run -device edu)", err)
	}
	e := device{d}
	id := e.ID()
	fmt.Printf("edu %d.%d at /dev/uio%d, BAR0 at %#x\n", id>>24, id>>16&0xff, e.Dev.Index, e.Regs.Phys)

	e.Regs.Write32(edu.RegLiveness, 0xcafe)
	fmt.Printf("liveness: wrote 0xcafe, read back %#x (its complement)\n", e.Regs.Read32(edu.RegLiveness))

	for _, n := range []uint32{5, 10, 12} {
		fmt.Printf("factorial: %d! = %d\n", n, e.Factorial(n))
	}
	e.interrupts(1000)
	if err := e.dma(); errors.Is(err, uio.ErrNoDMA) {
		fmt.Println("dma: skipped (no DMA map on this system)")
	} else if err != nil {
		log.Fatal(err)
	}
}

// wait waits for the next interrupt and lets the device interrupt again
// after acknowledging `bits` at it.
func (e device) wait(bits uint32) {
	if _, err := e.Dev.Wait(); err != nil {
		log.Fatal(err)
	}
	if got := e.Regs.Read32(edu.RegIRQStatus); got&bits == 0 {
		log.Fatalf("interrupt status %#x, want %#x", got, bits)
	}
	e.Ack(bits)
	if err := e.Dev.EnableInterrupts(); err != nil {
		log.Fatal(err)
	}
}

// interrupts raises n interrupts one after another and reports the time
// from raising one to the goroutine waking for it.
func (e device) interrupts(n int) {
	if err := e.Dev.EnableInterrupts(); err != nil {
		log.Fatal(err)
	}
	start := time.Now()
	for range n {
		e.Raise()
		e.wait(edu.IRQFactorial)
	}
	fmt.Printf("interrupts: %d raised and acknowledged, %v per round trip\n", n, time.Since(start)/time.Duration(n))
}

func (e device) dma() error {
	mem, err := e.Dev.DMA()
	if err != nil {
		return err
	}
	out, err := mem.Alloc(dmaBytes, 4096)
	if err != nil {
		return err
	}
	back, err := mem.Alloc(dmaBytes, 4096)
	if err != nil {
		return err
	}
	copy(out.Bytes, bytes.Repeat([]byte("gometal DMA "), dmaBytes/12+1))
	e.transfer(out.Phys, edu.Buffer, false)
	e.transfer(edu.Buffer, back.Phys, true)
	fmt.Printf("dma: %d bytes from %#x to the device and back to %#x: equal=%v\n",
		dmaBytes, out.Phys, back.Phys, bytes.Equal(out.Bytes, back.Bytes))
	return nil
}

func (e device) transfer(src, dst uint64, toRAM bool) {
	e.StartDMA(src, dst, dmaBytes, toRAM)
	e.wait(edu.IRQDMA)
}
