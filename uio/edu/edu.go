// Package edu is a driver for QEMU's educational PCI device ("edu",
// QEMU's docs/specs/edu.txt) over UIO: its registers, and the operations
// the examples, tests and benchmark share (identification, factorial,
// raising and acknowledging interrupts, starting a DMA transfer). Each
// program keeps its own policy (how it waits, what it checks).
package edu

import "gometal.dev/gometal/uio"

// Spec is the UIO name of the device: PCI vendor 0x1234, device 0x11e8.
const Spec = "pci:1234:11e8"

// Registers (offsets in BAR0).
const (
	RegID        = 0x00
	RegLiveness  = 0x04 // reads back the complement of what was written
	RegFactorial = 0x08
	RegStatus    = 0x20
	RegIRQStatus = 0x24
	RegIRQRaise  = 0x60
	RegIRQAck    = 0x64
	RegDMASrc    = 0x80
	RegDMADst    = 0x88
	RegDMACount  = 0x90
	RegDMACmd    = 0x98
)

// Bits and addresses.
const (
	StatusComputing = 0x01 // RegStatus: the factorial is being computed
	StatusIRQOnFact = 0x80 // RegStatus: interrupt when it is done

	DMAStart = 1 // RegDMACmd bits
	DMAToRAM = 2
	DMAIRQ   = 4

	IRQFactorial = 0x001 // RegIRQStatus bits
	IRQDMA       = 0x100

	// Buffer is the device's 4 KiB buffer as a DMA address.
	Buffer = 0x40000
)

// Edu is the device with BAR0 mapped.
type Edu struct {
	Dev  *uio.Device
	Regs *uio.Region
}

// Open finds the device and maps its registers.
func Open() (*Edu, error) {
	dev, err := uio.Open(Spec)
	if err != nil {
		return nil, err
	}
	regs, err := dev.Map(0)
	if err != nil {
		dev.Close()
		return nil, err
	}
	return &Edu{dev, regs}, nil
}

// ID is the identification register: 0xRRrr00ed for version RR.rr.
func (e *Edu) ID() uint32 { return e.Regs.Read32(RegID) }

// Factorial computes n! on the device, polling for the result.
func (e *Edu) Factorial(n uint32) uint32 {
	e.Regs.Write32(RegFactorial, n)
	for e.Regs.Read32(RegStatus)&StatusComputing != 0 {
	}
	return e.Regs.Read32(RegFactorial)
}

// Raise makes the device interrupt with status bit 1.
func (e *Edu) Raise() { e.Regs.Write32(RegIRQRaise, 1) }

// Ack acknowledges the interrupt status bits `bits` at the device.
func (e *Edu) Ack(bits uint32) { e.Regs.Write32(RegIRQAck, bits) }

// StartDMA starts moving n bytes from src to dst (DMA addresses; one of
// them Buffer), towards RAM if toRAM, with an interrupt (IRQDMA) at the end.
func (e *Edu) StartDMA(src, dst, n uint64, toRAM bool) {
	cmd := uint64(DMAStart | DMAIRQ)
	if toRAM {
		cmd |= DMAToRAM
	}
	e.Regs.Write64(RegDMASrc, src)
	e.Regs.Write64(RegDMADst, dst)
	e.Regs.Write64(RegDMACount, n)
	e.Regs.Write64(RegDMACmd, cmd)
}
