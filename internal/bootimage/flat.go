package bootimage

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// FromELF turns the kernel ELF (as cargo links it, the Image header in its
// first bytes) into the flat Image loaders take: every loadable segment's
// bytes at its offset from the first, .bss left out, and the checksum of
// the code stamped into the descriptor. The result depends only on the
// ELF's bytes, so the Image is as reproducible as the ELF.
func FromELF(data []byte) ([]byte, error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	var loads []*elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Filesz > 0 {
			loads = append(loads, p)
		}
	}
	if len(loads) == 0 {
		return nil, errors.New("kernel: no loadable segments")
	}
	sort.Slice(loads, func(i, j int) bool { return loads[i].Vaddr < loads[j].Vaddr })
	base := loads[0].Vaddr
	last := loads[len(loads)-1]
	size := last.Vaddr + last.Filesz - base
	if size > 1<<30 {
		return nil, fmt.Errorf("kernel: segments span %d bytes", size)
	}
	img := make([]byte, size)
	for _, p := range loads {
		if _, err := p.ReadAt(img[p.Vaddr-base:p.Vaddr-base+p.Filesz], 0); err != nil {
			return nil, fmt.Errorf("kernel: segment at %#x: %w", p.Vaddr, err)
		}
	}
	h, err := ReadHeader(img)
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	if !h.Gometal || h.CheckedSize < codeStart || h.CheckedSize > size {
		return nil, errors.New("kernel: no gometal image descriptor after the Image header")
	}
	binary.LittleEndian.PutUint64(img[offCodeSum:], Checksum(img[codeStart:h.CheckedSize]))
	return img, nil
}
