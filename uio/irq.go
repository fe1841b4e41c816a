package uio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"
)

// pciCommandIntxDisable is bit 10 of the PCI command register (offset 4).
const (
	pciCommand            = 4
	pciCommandIntxDisable = 1 << 10
)

// Wait blocks the goroutine until the device's next interrupt and returns
// the interrupt count so far. The kernel has silenced the device by then
// (PCI: INTx disabled); call EnableInterrupts after acknowledging it at the
// device. Only the goroutine blocks: /dev/uioN is in Go's netpoller.
func (d *Device) Wait() (uint32, error) {
	var b [4]byte
	n, err := d.f.Read(b[:])
	if err != nil {
		return 0, err
	}
	if n != 4 {
		return 0, fmt.Errorf("uio%d: read %d bytes, want 4", d.Index, n)
	}
	return binary.NativeEndian.Uint32(b[:]), nil
}

// Interrupts delivers each interrupt's count on a channel, from a goroutine
// that calls Wait until it fails (the device was closed); the error, if any,
// is then sent on errc, and both channels are closed.
func (d *Device) Interrupts() (counts <-chan uint32, errc <-chan error) {
	c := make(chan uint32, 1)
	e := make(chan error, 1)
	go func() {
		defer close(c)
		defer close(e)
		for {
			n, err := d.Wait()
			if err != nil {
				e <- err
				return
			}
			c <- n
		}
	}()
	return c, e
}

// EnableInterrupts lets the device interrupt again: UIO's irqcontrol
// (write 1 to /dev/uioN), or, where the driver has none (Linux's
// uio_pci_generic answers ENOSYS... or EIO), the PCI way of clearing
// Interrupt Disable in the command register through device/config.
func (d *Device) EnableInterrupts() error {
	err := d.irqControl(1)
	if err == nil || d.Vendor == 0 || !noIRQControl(err) {
		return err
	}
	return d.SetINTxDisabled(false)
}

// DisableInterrupts is irqcontrol 0, or the PCI way.
func (d *Device) DisableInterrupts() error {
	err := d.irqControl(0)
	if err == nil || d.Vendor == 0 || !noIRQControl(err) {
		return err
	}
	return d.SetINTxDisabled(true)
}

func (d *Device) irqControl(v uint32) error {
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], v)
	_, err := d.f.Write(b[:])
	return err
}

func noIRQControl(err error) bool {
	return errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EIO)
}

// SetINTxDisabled sets or clears the Interrupt Disable bit of the PCI
// command register through device/config: a 2-byte read and write.
func (d *Device) SetINTxDisabled(disabled bool) error {
	var b [2]byte
	if err := d.ReadConfig(b[:], pciCommand); err != nil {
		return err
	}
	cmd := binary.LittleEndian.Uint16(b[:])
	if disabled {
		cmd |= pciCommandIntxDisable
	} else {
		cmd &^= pciCommandIntxDisable
	}
	binary.LittleEndian.PutUint16(b[:], cmd)
	return d.WriteConfig(b[:], pciCommand)
}
