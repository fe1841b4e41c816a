package bootimage

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// WithPayload returns a one-file image: the kernel Image `kernel` (from
// FromELF) followed by the program's command line and initramfs. The
// payload starts after the kernel's memory (its .bss, which the kernel
// clears at boot, is written out as zeros), and the header's image_size
// grows to cover it, so a loader that moves the image (U-Boot's booti)
// moves the payload too. The file is padded to a whole page.
func WithPayload(kernel []byte, cmdline string, initramfs []byte) ([]byte, error) {
	h, err := ReadHeader(kernel)
	if err != nil {
		return nil, err
	}
	if !h.Gometal {
		return nil, errors.New("the kernel has no gometal image descriptor")
	}
	if h.HasPayload() {
		return nil, errors.New("the kernel image already carries a program")
	}
	if h.ImageSize < uint64(len(kernel)) {
		return nil, fmt.Errorf("the kernel's image_size %d is smaller than its file (%d)", h.ImageSize, len(kernel))
	}
	payload := roundUp(h.ImageSize, page)
	initramfsOff := roundUp(uint64(len(cmdline)), page)
	end := payload + initramfsOff + uint64(len(initramfs))
	size := roundUp(end, page)
	img := make([]byte, size)
	copy(img, kernel)
	copy(img[payload:], cmdline)
	copy(img[payload+initramfsOff:], initramfs)
	le := binary.LittleEndian
	le.PutUint64(img[offImageSize:], size)
	le.PutUint64(img[offPayload:], payload)
	le.PutUint64(img[offCmdlineLen:], uint64(len(cmdline)))
	le.PutUint64(img[offInitramfsOffset:], initramfsOff)
	le.PutUint64(img[offInitramfsLen:], uint64(len(initramfs)))
	le.PutUint64(img[offPayloadSum:], Checksum(img[payload:end]))
	if err := stampPE(img); err != nil {
		return nil, err
	}
	stampSums(img, h)
	return img, nil
}

func roundUp(n, to uint64) uint64 { return (n + to - 1) / to * to }
