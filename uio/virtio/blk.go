package virtio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"gometal.dev/gometal/uio"
)

// SectorSize is virtio-blk's unit of addressing.
const SectorSize = 512

const (
	blkIn  = 0
	blkOut = 1
	// maxTransfer bounds one request's data (a bounce buffer in DMA memory).
	maxTransfer = 64 << 10
)

// Blk is a virtio block device. Its methods may be called from several
// goroutines; requests are serialised.
type Blk struct {
	p       *PCI
	q       *Queue
	mu      sync.Mutex
	hdr     uio.Buffer
	data    uio.Buffer
	status  uio.Buffer
	Sectors uint64
}

// OpenBlk sets up the block device at d (a virtio-blk-pci, modern).
func OpenBlk(d *uio.Device) (*Blk, error) {
	p, err := OpenPCI(d)
	if err != nil {
		return nil, err
	}
	if _, err := p.Negotiate(0); err != nil {
		return nil, err
	}
	q, err := p.SetupQueue(0, 16)
	if err != nil {
		return nil, err
	}
	b := &Blk{p: p, q: q}
	if b.hdr, err = p.DMA.Alloc(16, 16); err != nil {
		return nil, err
	}
	if b.data, err = p.DMA.Alloc(maxTransfer, 4096); err != nil {
		return nil, err
	}
	if b.status, err = p.DMA.Alloc(1, 1); err != nil {
		return nil, err
	}
	if err := d.EnableInterrupts(); err != nil {
		return nil, err
	}
	p.Ready()
	b.Sectors = uint64(p.Config.Read32(0)) | uint64(p.Config.Read32(4))<<32
	return b, nil
}

// Size is the device's size in bytes.
func (b *Blk) Size() int64 { return int64(b.Sectors * SectorSize) }

// transfer moves len(buf) bytes (a multiple of SectorSize, at most
// maxTransfer) at sector.
func (b *Blk) transfer(op uint32, sector uint64, buf []byte) error {
	binary.LittleEndian.PutUint32(b.hdr.Bytes[0:], op)
	binary.LittleEndian.PutUint32(b.hdr.Bytes[4:], 0)
	binary.LittleEndian.PutUint64(b.hdr.Bytes[8:], sector)
	if op == blkOut {
		copy(b.data.Bytes, buf)
	}
	b.status.Bytes[0] = 0xff
	err := b.q.Submit([]Segment{
		{Phys: b.hdr.Phys, Len: 16},
		{Phys: b.data.Phys, Len: uint32(len(buf)), Writable: op == blkIn},
		{Phys: b.status.Phys, Len: 1, Writable: true},
	})
	if err == nil {
		err = b.q.Wait()
	}
	if err != nil {
		return err
	}
	if s := b.status.Bytes[0]; s != 0 {
		return fmt.Errorf("virtio-blk: request at sector %d failed with status %d", sector, s)
	}
	if op == blkIn {
		copy(buf, b.data.Bytes)
	}
	return nil
}

// do runs whole-sector transfers of any length in maxTransfer pieces.
func (b *Blk) do(op uint32, buf []byte, off int64) error {
	if off%SectorSize != 0 || len(buf)%SectorSize != 0 || off < 0 {
		return errors.New("virtio-blk: unaligned transfer")
	}
	if off+int64(len(buf)) > b.Size() {
		return errors.New("virtio-blk: transfer beyond the end of the device")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(buf) > 0 {
		n := min(len(buf), maxTransfer)
		if err := b.transfer(op, uint64(off/SectorSize), buf[:n]); err != nil {
			return err
		}
		buf, off = buf[n:], off+int64(n)
	}
	return nil
}

// ReadAt reads whole sectors (offset and length multiples of SectorSize).
func (b *Blk) ReadAt(p []byte, off int64) (int, error) {
	if err := b.do(blkIn, p, off); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteAt writes whole sectors.
func (b *Blk) WriteAt(p []byte, off int64) (int, error) {
	if err := b.do(blkOut, p, off); err != nil {
		return 0, err
	}
	return len(p), nil
}
