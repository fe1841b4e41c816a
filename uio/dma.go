package uio

import (
	"errors"
	"fmt"
	"sync"
)

// ErrNoDMA: the device has no DMA map (Linux's uio_pci_generic has none).
var ErrNoDMA = errors.New("uio: the device has no DMA map")

// DMA hands out pieces of a device's DMA region: physically contiguous
// memory whose physical addresses the device can be given.
type DMA struct {
	region *Region
	mu     sync.Mutex
	alloc  allocator
}

// Buffer is one allocation: its bytes and their physical address.
type Buffer struct {
	Bytes []byte
	Phys  uint64
	off   uint64
}

// DMA maps the device's DMA region (the map named "dma") for allocation.
func (d *Device) DMA() (*DMA, error) {
	for i, m := range d.Maps {
		if m.Name == "dma" {
			r, err := d.Map(i)
			if err != nil {
				return nil, err
			}
			return &DMA{region: r, alloc: newAllocator(uint64(r.Len()))}, nil
		}
	}
	return nil, fmt.Errorf("uio%d: %w", d.Index, ErrNoDMA)
}

// Region is the whole DMA region.
func (m *DMA) Region() *Region { return m.region }

// Alloc returns size bytes aligned to align (a power of two; 0 means 64),
// zeroed.
func (m *DMA) Alloc(size, align uint64) (Buffer, error) {
	m.mu.Lock()
	off, err := m.alloc.alloc(size, align)
	m.mu.Unlock()
	if err != nil {
		return Buffer{}, err
	}
	b := m.region.Bytes()[off : off+size : off+size]
	clear(b)
	return Buffer{Bytes: b, Phys: m.region.Phys + off, off: off}, nil
}

// Free returns b to the allocator.
func (m *DMA) Free(b Buffer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.alloc.free(b.off, uint64(len(b.Bytes)))
}
