package console

import (
	"io"
	"os"
)

// IsTerminal reports whether f looks like a terminal (a character device).
// Terminals go to QEMU directly so that it can switch them to raw mode and
// keep Ctrl-C working; /dev/null, also a character device, is harmless.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// GatedInput returns a pipe whose read end is QEMU's stdin. Bytes from src
// flow into it only once gate is closed, so piped input is not read by QEMU
// while the firmware is still initializing (and discarding) the UART's
// receive buffer. At EOF of src the pipe is closed. stop closes the pipe
// early when QEMU has exited; a copy blocked reading src is abandoned,
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
		io.Copy(pw, src)
	}()
	stop = func() {
		close(quit)
		pr.Close()
	}
	return pr, stop, nil
}
