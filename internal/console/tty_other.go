//go:build !linux

package console

import "os"

// isTerminal falls back to "is a character device" where TCGETS is not available.
func isTerminal(fd uintptr) bool {
	st, err := os.NewFile(fd, "").Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
