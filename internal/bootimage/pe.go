package bootimage

// The PE/COFF header that makes an arm64 image a UEFI application too
// (Linux's EFI stub layout, as Debian's arm64 kernels carry it): "MZ" is the
// image's first instruction (the kernel's entry.S), the word at 0x3c is
// where the PE header goes, and the kernel leaves 256 bytes there, the
// first word holding its EFI entry's offset (kernel/src/arch/aarch64/efi.rs).
// stampPE writes the header: one section covering the whole image at
// virtual address = file offset, no relocations, so the firmware's copy
// in memory is the file byte for byte (the kernel's .bss and anything
// past the file zero-filled up to image_size).

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

const (
	offPE         = 0x3c
	peSpace       = 256
	peHeaders     = 0x1000 // SizeOfHeaders: the first page, where the PE header must lie
	peFileAlign   = 0x200
	peSectionAlgn = 0x1000
	peOptSize     = 112 + 6*8 // PE32+ optional header with six data directories
)

// stampPE writes the PE/COFF header into an arm64 image whose kernel has
// room for it, for the image's current size and image_size; other images
// are left alone. The header lies inside the checksummed code: callers
// stamp the checksum afterwards.
func stampPE(img []byte) error {
	if !bytes.Equal(img[offMagic2:offMagic2+4], archMagic["arm64"]) || !bytes.Equal(img[:2], []byte("MZ")) {
		return nil
	}
	le := binary.LittleEndian
	p := uint64(le.Uint32(img[offPE:]))
	if p == 0 {
		return nil
	}
	if p+peSpace > peHeaders || p+peSpace > uint64(len(img)) {
		return fmt.Errorf("kernel: the PE header's place %#x is not in the image's first page", p)
	}
	pe := img[p : p+peSpace]
	var entry uint64
	if bytes.Equal(pe[:4], []byte("PE\x00\x00")) {
		entry = uint64(le.Uint32(pe[24+16:])) // stamped before: AddressOfEntryPoint
	} else {
		entry = le.Uint64(pe) // the kernel's placeholder
	}
	size := uint64(len(img))
	imageSize := roundUp(max(le.Uint64(img[offImageSize:]), size), peSectionAlgn)
	if entry < peHeaders || entry >= size || size%peFileAlign != 0 || imageSize > 1<<32 {
		return fmt.Errorf("kernel: cannot describe the image as PE/COFF (entry %#x, %d bytes)", entry, size)
	}
	clear(pe)
	copy(pe, "PE\x00\x00")
	coff := pe[4:]
	le.PutUint16(coff[0:], 0xaa64) // Machine: arm64
	le.PutUint16(coff[2:], 1)      // NumberOfSections
	le.PutUint16(coff[16:], peOptSize)
	le.PutUint16(coff[18:], 0x0206) // executable, line numbers and debug info stripped
	opt := pe[24:]
	le.PutUint16(opt[0:], 0x20b) // PE32+
	code := uint32(size - peHeaders)
	le.PutUint32(opt[4:], code)               // SizeOfCode
	le.PutUint32(opt[16:], uint32(entry))     // AddressOfEntryPoint
	le.PutUint32(opt[20:], peHeaders)         // BaseOfCode
	le.PutUint32(opt[32:], peSectionAlgn)     // SectionAlignment
	le.PutUint32(opt[36:], peFileAlign)       // FileAlignment
	le.PutUint32(opt[56:], uint32(imageSize)) // SizeOfImage
	le.PutUint32(opt[60:], peHeaders)         // SizeOfHeaders
	le.PutUint16(opt[68:], 10)                // Subsystem: EFI application
	le.PutUint32(opt[108:], 6)                // NumberOfRvaAndSizes (all zero: no relocations)
	sec := pe[24+peOptSize:]
	copy(sec, ".text")
	le.PutUint32(sec[8:], uint32(imageSize-peHeaders)) // VirtualSize
	le.PutUint32(sec[12:], peHeaders)                  // VirtualAddress = file offset
	le.PutUint32(sec[16:], code)                       // SizeOfRawData
	le.PutUint32(sec[20:], peHeaders)                  // PointerToRawData
	le.PutUint32(sec[36:], 0xe0000060)                 // code, data; read, write, execute
	return nil
}

// stampSums writes the code's checksum (after stampPE, which changes it).
func stampSums(img []byte, h Header) {
	binary.LittleEndian.PutUint64(img[offCodeSum:], Checksum(img[codeStart:h.CheckedSize]))
}
