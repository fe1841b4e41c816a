// Package bootimage reads and writes gometal's kernel images: Linux kernel
// Images (the 64-byte header that QEMU -kernel, U-Boot's booti and UEFI
// loaders start, see docs/boards.md) with gometal's descriptor after the
// header, and the one-file application images `gometal build` writes,
// which carry a program, its command line and its files after the kernel.
//
// The layout is shared with the kernel (kernel/core/src/boot/bootimage.rs):
//
//	0x00 code0, code1  a jump over the header and descriptor
//	0x08 text_offset   0x200000
//	0x10 image_size    what the image occupies in memory, payload included
//	0x18 flags         0: little endian
//	0x20 version       0.2
//	0x30 magic         "RISCV\0\0\0" (riscv64)
//	0x38 magic2        "RSC\x05" (riscv64), "ARM\x64" (arm64)
//	0x3c PE offset     0, or where the PE/COFF header is (UEFI)
//	0x40 "GOMETAL\0", then checked_size, code_sum, payload_offset,
//	     cmdline_len, initramfs_offset, initramfs_len, payload_sum
//	0x80 the first instruction (riscv64); on arm64 the PE/COFF header
//	     (pe.go), zeros to 0x1000, the early console there (earlycon.go)
//	     and the first instruction after it
package bootimage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Offsets in the header and the descriptor.
const (
	offImageSize       = 0x10
	offMagic2          = 0x38
	offDescriptor      = 0x40
	offCheckedSize     = 0x48
	offCodeSum         = 0x50
	offPayload         = 0x58
	offCmdlineLen      = 0x60
	offInitramfsOffset = 0x68
	offInitramfsLen    = 0x70
	offPayloadSum      = 0x78
	codeStart          = 0x80
	headerLen          = 0x80
	page               = 4096
)

var descriptorMagic = []byte("GOMETAL\x00")

// An architecture's Image magic (magic2 at 0x38).
var archMagic = map[string][]byte{
	"riscv64": []byte("RSC\x05"),
	"arm64":   []byte("ARM\x64"),
}

// ErrNotImage is returned for a file that has no Linux Image header.
var ErrNotImage = errors.New("not a Linux kernel Image (no riscv64 or arm64 magic at offset 0x38)")

// Header is what a kernel Image says about itself.
type Header struct {
	Arch      string // "riscv64" or "arm64"
	ImageSize uint64 // bytes the image occupies in memory
	// Gometal: the image has gometal's descriptor (a gometal kernel).
	Gometal bool
	// The descriptor's fields (zero without one).
	CheckedSize, CodeSum                      uint64
	PayloadOffset, CmdlineLen                 uint64
	InitramfsOffset, InitramfsLen, PayloadSum uint64
}

// HasPayload reports whether the image carries a program.
func (h Header) HasPayload() bool { return h.PayloadOffset != 0 }

// payloadEnd is where the checked payload ends in the file.
func (h Header) payloadEnd() uint64 {
	return h.PayloadOffset + h.InitramfsOffset + h.InitramfsLen
}

// ReadHeader reads the header (and the descriptor, if there is one) at
// the start of img.
func ReadHeader(img []byte) (Header, error) {
	if len(img) < headerLen {
		return Header{}, ErrNotImage
	}
	var h Header
	for arch, magic := range archMagic {
		if bytes.Equal(img[offMagic2:offMagic2+4], magic) {
			h.Arch = arch
		}
	}
	if h.Arch == "" {
		return Header{}, ErrNotImage
	}
	le := binary.LittleEndian
	h.ImageSize = le.Uint64(img[offImageSize:])
	if !bytes.Equal(img[offDescriptor:offDescriptor+8], descriptorMagic) {
		return h, nil
	}
	h.Gometal = true
	h.CheckedSize = le.Uint64(img[offCheckedSize:])
	h.CodeSum = le.Uint64(img[offCodeSum:])
	h.PayloadOffset = le.Uint64(img[offPayload:])
	h.CmdlineLen = le.Uint64(img[offCmdlineLen:])
	h.InitramfsOffset = le.Uint64(img[offInitramfsOffset:])
	h.InitramfsLen = le.Uint64(img[offInitramfsLen:])
	h.PayloadSum = le.Uint64(img[offPayloadSum:])
	return h, nil
}

// Checksum is FNV-1a over little-endian 64-bit words, a short tail
// zero-padded: what the kernel's boot code checks (not a defence against
// a crafted file, only against a damaged one).
func Checksum(data []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for len(data) > 0 {
		var word [8]byte
		n := copy(word[:], data)
		data = data[n:]
		h ^= binary.LittleEndian.Uint64(word[:])
		h *= 0x100000001b3
	}
	return h
}

// Check verifies a gometal image as the kernel will at boot: its header,
// the checksum of its code and, if it carries a program, the payload's.
// A truncated file fails here with a message that says so.
func Check(img []byte) (Header, error) {
	h, err := ReadHeader(img)
	if err != nil {
		return h, err
	}
	if !h.Gometal {
		return h, fmt.Errorf("a Linux %s Image, but not a gometal one", h.Arch)
	}
	if !codeMatchesArch(h.Arch, img) {
		return h, fmt.Errorf("its header says %s, but its first instruction is not %s code (an image for another architecture?)", h.Arch, h.Arch)
	}
	if h.CheckedSize < codeStart || h.CheckedSize > uint64(len(img)) {
		return h, fmt.Errorf("truncated: %d bytes, the kernel alone needs %d", len(img), h.CheckedSize)
	}
	if h.CodeSum != 0 && Checksum(img[codeStart:h.CheckedSize]) != h.CodeSum {
		return h, errors.New("damaged: the kernel's code does not match its checksum")
	}
	if !h.HasPayload() {
		return h, nil
	}
	if h.payloadEnd() > h.ImageSize || h.PayloadOffset+h.CmdlineLen > h.PayloadOffset+h.InitramfsOffset {
		return h, errors.New("damaged: its descriptor describes an impossible layout")
	}
	if h.payloadEnd() > uint64(len(img)) {
		return h, fmt.Errorf("truncated: %d bytes, the program ends at %d", len(img), h.payloadEnd())
	}
	if Checksum(img[h.PayloadOffset:h.payloadEnd()]) != h.PayloadSum {
		return h, errors.New("damaged: the program does not match its checksum")
	}
	return h, nil
}

// codeMatchesArch reports whether the image's first instruction is what a
// gometal kernel for arch starts with: on riscv64 a jump (jal x0), on
// arm64 a branch or the "MZ" ccmp of an image that is also a PE/COFF
// file. The magic at 0x38 alone says nothing of the code (neither
// checksum covers the header).
func codeMatchesArch(arch string, img []byte) bool {
	insn := binary.LittleEndian.Uint32(img)
	switch arch {
	case "riscv64":
		return insn&0xfff == 0x06f // jal x0, _start
	case "arm64":
		return insn == 0xfa405a4d || insn>>26 == 0b000101 // ccmp x18, #0, #0xd, pl ("MZ"); b
	}
	return false
}
