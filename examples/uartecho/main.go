// Command uartecho drives a 16550 UART on PCI (QEMU's pci-serial) from Go
// through UIO, with receive interrupts: every line it receives it sends
// back upper-cased, until a line "bye". It says "ready" first. Run it with
//
//	gometal run -device serial=tcp:127.0.0.1:4555 ./examples/uartecho
//
// and talk to it with `nc 127.0.0.1 4555`. The UART's registers are in an
// I/O BAR, which RISC-V reaches as memory; gometal maps it like a memory
// BAR (Linux's uio_pci_generic does not map I/O BARs).
package main

import (
	"bytes"
	"fmt"
	"log"

	"gometal.dev/gometal/uio"
)

// 16550 registers (byte offsets) and bits.
const (
	rbr = 0 // receive buffer (read)
	thr = 0 // transmit holding (write)
	ier = 1 // interrupt enable
	fcr = 2 // FIFO control (write)
	lcr = 3 // line control
	mcr = 4 // modem control
	lsr = 5 // line status

	ierRxData   = 0x01
	lsrDataRdy  = 0x01
	lsrTxEmpty  = 0x20
	mcrOut2     = 0x08 // gates the interrupt line on PC-style boards
	lcr8N1      = 0x03
	fcrEnable   = 0x01
	fcrClearAll = 0x06
)

type uart struct {
	dev  *uio.Device
	regs *uio.Region
}

func (u uart) put(b byte) {
	for u.regs.Read8(lsr)&lsrTxEmpty == 0 {
	}
	u.regs.Write8(thr, b)
}

// drain reads every byte the UART holds.
func (u uart) drain(into []byte) []byte {
	for u.regs.Read8(lsr)&lsrDataRdy != 0 {
		into = append(into, u.regs.Read8(rbr))
	}
	return into
}

func main() {
	dev, err := uio.Open("pci:1b36:0002")
	if err != nil {
		log.Fatalf("uartecho: %v (run with: gometal run -device serial=tcp:HOST:PORT)", err)
	}
	regs, err := dev.Map(0)
	if err != nil {
		log.Fatal(err)
	}
	u := uart{dev, regs}
	regs.Write8(lcr, lcr8N1)
	regs.Write8(fcr, fcrEnable|fcrClearAll)
	regs.Write8(mcr, mcrOut2)
	regs.Write8(ier, ierRxData)
	if err := dev.EnableInterrupts(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("uartecho: 16550 at %#x (/dev/uio%d), waiting for lines\n", regs.Phys, dev.Index)
	// Tell the other end: bytes it sent before this point were dropped
	// with the FIFOs cleared above.
	for _, b := range []byte("ready\n") {
		u.put(b)
	}
	irqs, errs := dev.Interrupts()
	var line []byte
	lines := 0
	for {
		select {
		case <-irqs:
		case err := <-errs:
			log.Fatal(err)
		}
		line = u.drain(line)
		if err := dev.EnableInterrupts(); err != nil {
			log.Fatal(err)
		}
		for {
			i := bytes.IndexByte(line, '\n')
			if i < 0 {
				break
			}
			text := bytes.TrimRight(line[:i], "\r")
			line = line[i+1:]
			lines++
			for _, b := range bytes.ToUpper(text) {
				u.put(b)
			}
			u.put('\n')
			if string(text) == "bye" {
				fmt.Printf("uartecho: %d lines echoed\n", lines)
				return
			}
		}
	}
}
