package uio

import (
	"errors"
	"fmt"
	"sort"
)

// errDMAFull: no free range is large enough.
var errDMAFull = errors.New("uio: DMA region exhausted")

// allocator is a first-fit allocator of byte ranges [0, size), with
// neighbouring free ranges merged on free. Pure: tested on the host.
type allocator struct {
	size  uint64
	holes []span // free ranges, sorted by start, never adjacent
}

type span struct{ start, end uint64 }

func newAllocator(size uint64) allocator {
	return allocator{size: size, holes: []span{{0, size}}}
}

func (a *allocator) alloc(size, align uint64) (uint64, error) {
	if align == 0 {
		align = 64
	}
	if size == 0 || align&(align-1) != 0 {
		return 0, fmt.Errorf("uio: DMA allocation of %d bytes aligned to %d", size, align)
	}
	for i, h := range a.holes {
		start := (h.start + align - 1) &^ (align - 1)
		if start < h.start || start+size < start || start+size > h.end {
			continue
		}
		var repl []span
		if start > h.start {
			repl = append(repl, span{h.start, start})
		}
		if start+size < h.end {
			repl = append(repl, span{start + size, h.end})
		}
		a.holes = append(a.holes[:i], append(repl, a.holes[i+1:]...)...)
		return start, nil
	}
	return 0, errDMAFull
}

func (a *allocator) free(off, size uint64) {
	a.holes = append(a.holes, span{off, off + size})
	sort.Slice(a.holes, func(i, j int) bool { return a.holes[i].start < a.holes[j].start })
	merged := a.holes[:1]
	for _, h := range a.holes[1:] {
		last := &merged[len(merged)-1]
		if h.start <= last.end {
			last.end = max(last.end, h.end)
			continue
		}
		merged = append(merged, h)
	}
	a.holes = merged
}
