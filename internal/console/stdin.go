package console

import (
	"io"
	"os"
)

// EndOfInput is the byte gometal's kernel reads as end of file on the
// console (a terminal's Ctrl-D). QEMU cannot tell the guest that its stdin
// ended, so GatedInput sends this byte when piped input runs out.
const EndOfInput = 0x04

// IsTerminal reports whether f is a terminal. Terminals go to QEMU directly
// so that it can switch them to raw mode and keep Ctrl-C working; anything
// else (a pipe, a file, /dev/null) is fed through GatedInput.
func IsTerminal(f *os.File) bool {
	return isTerminal(f.Fd())
}

// GatedInput returns a pipe whose read end is QEMU's stdin. Bytes from src
// flow into it only once gate is closed, so piped input is not read by QEMU
// while the firmware is still initializing (and discarding) the UART's
// receive buffer.  stop closes the pipe
// early when QEMU has exited; at EOF of src, EndOfInput is sent first so the
// program sees end of file; a copy blocked reading src is abandoned,
// which is fine because gometal is about to exit.
func GatedInput(src io.Reader, gate <-chan struct{}) (r *os.File, stop func(), err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	quit := make(chan struct{})
	go func() {
		defer pw.Close()
		select {
		case <-gate:
		case <-quit:
			return
		}
		if _, err := io.Copy(pw, src); err == nil {
			pw.Write([]byte{EndOfInput})
		}
	}()
	stop = func() {
		close(quit)
		pr.Close()
	}
	return pr, stop, nil
}
