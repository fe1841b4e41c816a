// statfs of the share, of a file in it (fstatfs), and of /tmp, for
// tests/mount_test.go to compare with the host's.

package main

import (
	"fmt"
	"os"
	"syscall"
)

func printStatfs() {
	var share, file, tmp syscall.Statfs_t
	check("statfs /data", syscall.Statfs("/data", &share))
	f, err := os.Open("/data/file.txt")
	check("open", err)
	check("fstatfs", syscall.Fstatfs(int(f.Fd()), &file))
	f.Close()
	check("statfs /tmp", syscall.Statfs("/tmp", &tmp))
	// The free counts may move between the calls (the host is busy).
	if file.Type != share.Type || file.Bsize != share.Bsize || file.Blocks != share.Blocks || file.Files != share.Files {
		fail("fstatfs of a file in the share %+v differs from statfs of the share %+v", file, share)
	}
	const tmpfsMagic = 0x01021994
	if tmp.Type != tmpfsMagic || tmp.Bsize != 4096 || tmp.Blocks == 0 || tmp.Bfree > tmp.Blocks || tmp.Namelen != 255 {
		fail("statfs /tmp: %+v", tmp)
	}
	fmt.Printf("statfs type %d bsize %d blocks %d bfree %d bavail %d files %d ffree %d namelen %d\n",
		share.Type, share.Bsize, share.Blocks, share.Bfree, share.Bavail, share.Files, share.Ffree, share.Namelen)
}
