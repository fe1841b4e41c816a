package uio

import (
	"encoding/binary"
	"fmt"
)

// BARAddress is the physical address in PCI memory BAR bar (0..5), read
// from config space (64-bit BARs take the next slot as the high half).
func (d *Device) BARAddress(bar int) (uint64, error) {
	if bar < 0 || bar > 5 {
		return 0, fmt.Errorf("uio%d: no BAR %d", d.Index, bar)
	}
	var b [8]byte
	if err := d.ReadConfig(b[:4], int64(0x10+4*bar)); err != nil {
		return 0, err
	}
	lo := binary.LittleEndian.Uint32(b[:4])
	if lo&1 != 0 {
		return 0, fmt.Errorf("uio%d: BAR %d is an I/O BAR", d.Index, bar)
	}
	addr := uint64(lo &^ 0xf)
	if lo&0x6 == 0x4 && bar < 5 { // 64-bit
		if err := d.ReadConfig(b[4:], int64(0x10+4*bar+4)); err != nil {
			return 0, err
		}
		addr |= uint64(binary.LittleEndian.Uint32(b[4:])) << 32
	}
	return addr, nil
}

// MapBAR maps PCI memory BAR bar: the UIO map whose address is the BAR's.
// Map names differ between systems (gometal: "BAR4"; Linux: the PCI
// device's name), addresses do not.
func (d *Device) MapBAR(bar int) (*Region, error) {
	addr, err := d.BARAddress(bar)
	if err != nil {
		return nil, err
	}
	for i, m := range d.Maps {
		if m.Addr+m.Offset == addr || m.Addr == addr {
			return d.Map(i)
		}
	}
	return nil, fmt.Errorf("uio%d: no map for BAR %d at %#x", d.Index, bar, addr)
}
