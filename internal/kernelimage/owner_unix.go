//go:build unix

package kernelimage

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByUs reports whether the file belongs to this process's user.
func ownedByUs(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}
