package uio

import (
	"fmt"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Region is a mapped device region: registers, or the DMA memory. Offsets
// are bytes from the region's start; an access outside it, or one not
// aligned to its width, panics (as an index out of range does).
type Region struct {
	mem []byte
	// Phys is the region's physical address (for the DMA map: what the
	// device must be told).
	Phys uint64
}

// Len is the region's size in bytes.
func (r *Region) Len() int { return len(r.mem) }

// Bytes is the region as a slice: for DMA memory, which is ordinary RAM.
// Never use it for registers (see the package comment).
func (r *Region) Bytes() []byte { return r.mem }

// Unmap removes the mapping; the Region must not be used afterwards.
func (r *Region) Unmap() error {
	return syscall.Munmap(r.mem[:cap(r.mem)])
}

func (r *Region) ptr(off uintptr, width uintptr) unsafe.Pointer {
	if off%width != 0 || off+width > uintptr(len(r.mem)) || off+width < off {
		panic(fmt.Sprintf("uio: %d-byte access at offset %#x of a %#x-byte region", width, off, len(r.mem)))
	}
	return unsafe.Pointer(&r.mem[off])
}

// Read32 loads the 32-bit register at off (one LR.W.aq on riscv64; see
// the package comment).
func (r *Region) Read32(off uintptr) uint32 {
	return atomic.LoadUint32((*uint32)(r.ptr(off, 4)))
}

// Write32 stores v to the 32-bit register at off (one AMOSWAP.W.aqrl on
// riscv64).
func (r *Region) Write32(off uintptr, v uint32) {
	atomic.StoreUint32((*uint32)(r.ptr(off, 4)), v)
}

// Read64 loads the 64-bit register at off.
func (r *Region) Read64(off uintptr) uint64 {
	return atomic.LoadUint64((*uint64)(r.ptr(off, 8)))
}

// Write64 stores v to the 64-bit register at off.
func (r *Region) Write64(off uintptr, v uint64) {
	atomic.StoreUint64((*uint64)(r.ptr(off, 8)), v)
}

// Read8 loads the byte register at off (see the package comment for what
// Go does and does not promise about it).
//
//go:noinline
func (r *Region) Read8(off uintptr) uint8 {
	return *(*uint8)(r.ptr(off, 1))
}

// Write8 stores v to the byte register at off.
//
//go:noinline
func (r *Region) Write8(off uintptr, v uint8) {
	*(*uint8)(r.ptr(off, 1)) = v
}

// Read16 loads the 16-bit register at off.
//
//go:noinline
func (r *Region) Read16(off uintptr) uint16 {
	return *(*uint16)(r.ptr(off, 2))
}

// Write16 stores v to the 16-bit register at off.
//
//go:noinline
func (r *Region) Write16(off uintptr, v uint16) {
	*(*uint16)(r.ptr(off, 2)) = v
}

// Sub is the part [off, off+n) of the region (a virtio capability's
// structure inside a BAR, say), sharing its mapping.
func (r *Region) Sub(off, n uintptr) *Region {
	if off+n > uintptr(len(r.mem)) || off+n < off {
		panic(fmt.Sprintf("uio: sub-region %#x+%#x of a %#x-byte region", off, n, len(r.mem)))
	}
	return &Region{mem: r.mem[off : off+n : off+n], Phys: r.Phys + uint64(off)}
}
