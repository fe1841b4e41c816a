package virtio

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"gometal.dev/gometal/uio"
)

// Descriptor flags.
const (
	descNext  = 1
	descWrite = 2
)

// Queue is a split virtqueue (spec 2.7) in DMA memory. Not safe for
// concurrent use: a driver serialises its requests.
type Queue struct {
	p         *PCI
	index     uint16
	size      uint16
	desc      uio.Buffer
	avail     uio.Buffer
	used      uio.Buffer
	notifyOff uintptr
	availIdx  uint16
	lastUsed  uint16
}

// SetupQueue allocates queue `index` with at most max entries and hands it
// to the device.
func (p *PCI) SetupQueue(index, max uint16) (*Queue, error) {
	c := p.common
	c.Write16(cQueueSelect, index)
	size := c.Read16(cQueueSize)
	if size == 0 {
		return nil, fmt.Errorf("virtio: queue %d does not exist", index)
	}
	size = min(size, max)
	q := &Queue{p: p, index: index, size: size}
	var err error
	n := uint64(size)
	if q.desc, err = p.DMA.Alloc(16*n, 16); err != nil {
		return nil, err
	}
	if q.avail, err = p.DMA.Alloc(6+2*n, 4); err != nil {
		return nil, err
	}
	if q.used, err = p.DMA.Alloc(6+8*n, 4); err != nil {
		return nil, err
	}
	c.Write16(cQueueSize, size)
	c.Write64(cQueueDesc, q.desc.Phys)
	c.Write64(cQueueDriver, q.avail.Phys)
	c.Write64(cQueueDevice, q.used.Phys)
	q.notifyOff = uintptr(c.Read16(cQueueNotifyOff)) * uintptr(p.notifyMul)
	c.Write16(cQueueEnable, 1)
	return q, nil
}

// Segment is one buffer of a request: its physical address and length,
// and whether the device writes it.
type Segment struct {
	Phys     uint64
	Len      uint32
	Writable bool
}

func u16at(b []byte, off int) *uint16 { return (*uint16)(unsafe.Pointer(&b[off])) }

// Submit chains segs into descriptors 0..len-1 (one request in flight at a
// time), makes it available and notifies the device.
func (q *Queue) Submit(segs []Segment) error {
	if len(segs) == 0 || len(segs) > int(q.size) {
		return errors.New("virtio: bad request size")
	}
	for i, s := range segs {
		d := q.desc.Bytes[16*i : 16*i+16]
		*(*uint64)(unsafe.Pointer(&d[0])) = s.Phys
		*(*uint32)(unsafe.Pointer(&d[8])) = s.Len
		var flags uint16
		if i+1 < len(segs) {
			flags |= descNext
		}
		if s.Writable {
			flags |= descWrite
		}
		*u16at(d, 12) = flags
		*u16at(d, 14) = uint16(i + 1)
	}
	*u16at(q.avail.Bytes, 4+2*int(q.availIdx%q.size)) = 0 // the chain's head
	q.availIdx++
	// The atomic store orders the descriptors before the index the device reads.
	atomicStore16(u16at(q.avail.Bytes, 2), q.availIdx)
	q.p.notify.Write16(q.notifyOff, q.index)
	return nil
}

// atomicStore16 stores v with release ordering through the 32-bit word
// that holds it (sync/atomic has no 16-bit operations; the other half of
// the word is the ring's flags, which only the driver writes).
func atomicStore16(p *uint16, v uint16) {
	word := (*uint32)(unsafe.Pointer(uintptr(unsafe.Pointer(p)) &^ 3))
	shift := (uintptr(unsafe.Pointer(p)) & 3) * 8
	for {
		old := atomic.LoadUint32(word)
		nw := old&^(0xffff<<shift) | uint32(v)<<shift
		if atomic.CompareAndSwapUint32(word, old, nw) {
			return
		}
	}
}

func atomicLoad16(p *uint16) uint16 {
	word := (*uint32)(unsafe.Pointer(uintptr(unsafe.Pointer(p)) &^ 3))
	shift := (uintptr(unsafe.Pointer(p)) & 3) * 8
	return uint16(atomic.LoadUint32(word) >> shift)
}

// Done reports whether the device has used a new chain (and consumes it).
func (q *Queue) Done() bool {
	if atomicLoad16(u16at(q.used.Bytes, 2)) == q.lastUsed {
		return false
	}
	q.lastUsed++
	return true
}

// Wait blocks until the device has used the submitted request, sleeping
// on the device's interrupt.
func (q *Queue) Wait() error {
	for !q.Done() {
		if _, err := q.p.Dev.Wait(); err != nil {
			return err
		}
		if err := q.p.AckInterrupt(); err != nil {
			return err
		}
	}
	return nil
}
