package main

import (
	"encoding/binary"
	"syscall"

	"gometal.dev/gometal/uio"
)

// irqWrite is UIO's irqcontrol write, raw, to see what the system answers.
func irqWrite(d *uio.Device, v uint32) error {
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], v)
	_, err := syscall.Write(d.RawFd(), b[:])
	return err
}
