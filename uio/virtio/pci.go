// Package virtio is a virtio 1.x driver written in Go over UIO: the modern
// PCI transport (capabilities in config space, structures in BARs), split
// virtqueues in the device's DMA memory, and a block device on top. It is
// what examples/fatls uses to read and write a disk image.
package virtio

import (
	"encoding/binary"
	"errors"
	"fmt"

	"gometal.dev/gometal/uio"
)

// Vendor-specific PCI capability types of virtio 1.x (spec 4.1.4).
const (
	capCommon = 1
	capNotify = 2
	capISR    = 3
	capDevice = 4
)

// Common configuration registers (spec 4.1.4.3).
const (
	cDeviceFeatureSelect = 0x00
	cDeviceFeature       = 0x04
	cDriverFeatureSelect = 0x08
	cDriverFeature       = 0x0c
	cNumQueues           = 0x12
	cDeviceStatus        = 0x14
	cQueueSelect         = 0x16
	cQueueSize           = 0x18
	cQueueEnable         = 0x1c
	cQueueNotifyOff      = 0x1e
	cQueueDesc           = 0x20
	cQueueDriver         = 0x28
	cQueueDevice         = 0x30
)

// Device status bits.
const (
	statusAcknowledge = 1
	statusDriver      = 2
	statusDriverOK    = 4
	statusFeaturesOK  = 8
)

// featureVersion1 is VIRTIO_F_VERSION_1 (bit 32): a modern device.
const featureVersion1 = 1 << 32

// PCI is a virtio device behind the modern PCI transport.
type PCI struct {
	Dev       *uio.Device
	common    *uio.Region
	isr       *uio.Region
	Config    *uio.Region // the device-specific configuration
	notify    *uio.Region
	notifyMul uint32
	DMA       *uio.DMA
}

type capability struct {
	typ, bar         uint8
	offset, length   uint32
	notifyMultiplier uint32
}

// capabilities walks the PCI capability list in config space.
func capabilities(d *uio.Device) ([]capability, error) {
	cfg := make([]byte, 256)
	if err := d.ReadConfig(cfg, 0); err != nil {
		return nil, err
	}
	var caps []capability
	for p, hops := int(cfg[0x34]&^3), 0; p != 0 && p+16 <= len(cfg) && hops < 48; p, hops = int(cfg[p+1]&^3), hops+1 {
		if cfg[p] != 0x09 { // vendor specific
			continue
		}
		c := capability{typ: cfg[p+3], bar: cfg[p+4], offset: binary.LittleEndian.Uint32(cfg[p+8:]), length: binary.LittleEndian.Uint32(cfg[p+12:])}
		if c.typ == capNotify && p+20 <= len(cfg) {
			c.notifyMultiplier = binary.LittleEndian.Uint32(cfg[p+16:])
		}
		caps = append(caps, c)
	}
	return caps, nil
}

// OpenPCI finds the transport's structures and resets the device.
func OpenPCI(d *uio.Device) (*PCI, error) {
	caps, err := capabilities(d)
	if err != nil {
		return nil, err
	}
	p := &PCI{Dev: d}
	bars := map[uint8]*uio.Region{}
	for _, c := range caps {
		if c.typ < capCommon || c.typ > capDevice {
			continue
		}
		r, ok := bars[c.bar]
		if !ok {
			if r, err = d.MapBAR(int(c.bar)); err != nil {
				return nil, err
			}
			bars[c.bar] = r
		}
		sub := r.Sub(uintptr(c.offset), uintptr(c.length))
		switch c.typ {
		case capCommon:
			p.common = sub
		case capNotify:
			p.notify, p.notifyMul = sub, c.notifyMultiplier
		case capISR:
			p.isr = sub
		case capDevice:
			p.Config = sub
		}
	}
	if p.common == nil || p.notify == nil || p.isr == nil {
		return nil, errors.New("virtio: not a modern virtio-pci device (capabilities missing)")
	}
	if p.DMA, err = d.DMA(); err != nil {
		return nil, err
	}
	p.common.Write8(cDeviceStatus, 0) // reset
	for p.common.Read8(cDeviceStatus) != 0 {
	}
	p.common.Write8(cDeviceStatus, statusAcknowledge|statusDriver)
	return p, nil
}

// Negotiate accepts VERSION_1 plus the wanted device features the device offers.
func (p *PCI) Negotiate(want uint64) (uint64, error) {
	var offered uint64
	for sel := range uint32(2) {
		p.common.Write32(cDeviceFeatureSelect, sel)
		offered |= uint64(p.common.Read32(cDeviceFeature)) << (32 * sel)
	}
	if offered&featureVersion1 == 0 {
		return 0, errors.New("virtio: device does not offer VERSION_1")
	}
	got := offered & (want | featureVersion1)
	for sel := range uint32(2) {
		p.common.Write32(cDriverFeatureSelect, sel)
		p.common.Write32(cDriverFeature, uint32(got>>(32*sel)))
	}
	p.common.Write8(cDeviceStatus, statusAcknowledge|statusDriver|statusFeaturesOK)
	if p.common.Read8(cDeviceStatus)&statusFeaturesOK == 0 {
		return 0, errors.New("virtio: device refused the features")
	}
	return got, nil
}

// Ready tells the device the driver is set up (after its queues).
func (p *PCI) Ready() {
	p.common.Write8(cDeviceStatus, statusAcknowledge|statusDriver|statusFeaturesOK|statusDriverOK)
}

// AckInterrupt reads (and so clears) the ISR status and lets the device
// interrupt again.
func (p *PCI) AckInterrupt() error {
	p.isr.Read8(0)
	return p.Dev.EnableInterrupts()
}

func (p *PCI) String() string {
	return fmt.Sprintf("virtio-pci at /dev/uio%d", p.Dev.Index)
}
