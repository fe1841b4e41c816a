// The read-only share: every call that would change it fails as on Linux.

package main

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// expect fails the program unless err is want.
func expect(what string, err error, want syscall.Errno) {
	if !errors.Is(err, want) {
		fail("%s on the read-only share: %v, want %v", what, err, want)
	}
}

func refuseWrites() {
	const file = "/ro/keep.txt"
	_, err := os.OpenFile(file, os.O_WRONLY, 0)
	expect("open for writing", err, syscall.EROFS)
	_, err = os.OpenFile(file, os.O_RDWR|os.O_TRUNC, 0)
	expect("open O_TRUNC", err, syscall.EROFS)
	_, err = os.OpenFile("/ro/new.txt", os.O_WRONLY|os.O_CREATE, 0o644)
	expect("O_CREAT", err, syscall.EROFS)
	f, err := os.OpenFile(file, os.O_RDONLY|os.O_CREATE, 0o644)
	check("O_CREAT|O_RDONLY of an existing file (allowed)", err)
	_, err = syscall.Mmap(int(f.Fd()), 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	expect("mmap MAP_SHARED PROT_WRITE of a read-only descriptor", err, syscall.EACCES)
	expect("fallocate on a read-only descriptor", syscall.Fallocate(int(f.Fd()), 0, 0, 8192), syscall.EBADF)
	f.Close()
	expect("mkdir", os.Mkdir("/ro/dir", 0o755), syscall.EROFS)
	expect("mkdir in a subdirectory", os.Mkdir("/ro/deep/new", 0o755), syscall.EROFS)
	expect("unlink", syscall.Unlink(file), syscall.EROFS)
	expect("remove", os.Remove(file), syscall.EROFS)
	expect("rmdir", syscall.Rmdir("/ro/deep"), syscall.EROFS)
	expect("rename inside", os.Rename(file, "/ro/moved.txt"), syscall.EROFS)
	expect("rename out of it", os.Rename(file, "/tmp/moved.txt"), syscall.EXDEV)
	check("write /tmp", os.WriteFile("/tmp/in.txt", []byte("x"), 0o644))
	expect("rename into it", os.Rename("/tmp/in.txt", "/ro/in.txt"), syscall.EXDEV)
	expect("link inside", os.Link(file, "/ro/link.txt"), syscall.EROFS)
	expect("link out of it", os.Link(file, "/tmp/link.txt"), syscall.EXDEV)
	expect("symlink", os.Symlink("keep.txt", "/ro/sym"), syscall.EROFS)
	expect("mknod", syscall.Mknod("/ro/fifo", syscall.S_IFIFO|0o644, 0), syscall.EROFS)
	expect("chmod", os.Chmod(file, 0o600), syscall.EROFS)
	expect("chmod of the mount point", os.Chmod("/ro", 0o700), syscall.EROFS)
	expect("chown", os.Chown(file, 1, 1), syscall.EROFS)
	expect("utimensat", os.Chtimes(file, time.Now(), time.Now()), syscall.EROFS)
	expect("truncate", os.Truncate(file, 0), syscall.EROFS)
	expect("access W_OK", syscall.Access(file, 2), syscall.EROFS)
	check("access R_OK", syscall.Access(file, 4))
	var st syscall.Statfs_t
	check("statfs", syscall.Statfs("/ro", &st))
	if st.Flags&1 == 0 { // ST_RDONLY
		fail("statfs of the read-only share: flags %#x lack ST_RDONLY", st.Flags)
	}
	if got := read(file); got != "read only\n" {
		fail("keep.txt reads %q after the refused writes", got)
	}
}
