// The share is live: writes are on the host when write returns, the host's
// changes during the run are seen, files bigger than the machine's memory
// stream through, renames across mounts are EXDEV, and a shared mapping's
// stores reach the host at msync.

package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// killed writes files (no fsync, no sync) and hangs until killed: the
// host must have every byte anyway.
func killed() {
	check("write", os.WriteFile("/data/unsynced.txt", []byte("never synced\n"), 0o644))
	check("mkdir", os.MkdirAll("/data/sub/dir", 0o755))
	f, err := os.Create("/data/sub/dir/open.txt")
	check("create", err)
	_, err = f.WriteString("written, still open\n")
	check("write open", err)
	check("rename", os.Rename("/data/sub/dir/open.txt", "/data/sub/moved.txt"))
	hang("written")
}

// watch reads files (keeping one open), tells the test to change the
// share, and polls (with a deadline) until the host's marker appears: then
// the new contents and names must be seen, names the host removed gone (a
// file it replaced by a rename reads anew, while the descriptor opened
// before still reads the old file, as on Linux).
func watch() {
	if got := read("/data/watched.txt"); got != "before\n" {
		fail("watched.txt reads %q before the change", got)
	}
	if got := read("/data/replaced.txt"); got != "old file\n" {
		fail("replaced.txt reads %q before the change", got)
	}
	old, err := os.Open("/data/replaced.txt")
	check("open replaced.txt", err)
	if _, err := os.Stat("/data/gone.txt"); err != nil {
		fail("gone.txt before the change: %v", err)
	}
	fmt.Println("watching; change the share now")
	deadline := time.Now().Add(90 * time.Second)
	for {
		if _, err := os.Stat("/data/marker"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			fail("the host's marker never appeared")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := read("/data/watched.txt"); got != "after, longer than before\n" {
		fail("watched.txt reads %q after the host changed it", got)
	}
	if got := read("/data/new/from-host.txt"); got != "made during the run\n" {
		fail("from-host.txt reads %q", got)
	}
	if _, err := os.Stat("/data/gone.txt"); !errors.Is(err, os.ErrNotExist) {
		fail("stat gone.txt after the host removed it: %v", err)
	}
	if got := read("/data/replaced.txt"); got != "the new file, renamed over the old\n" {
		fail("replaced.txt reads %q after the host renamed a new file over it", got)
	}
	b := make([]byte, 64)
	n, _ := old.ReadAt(b, 0)
	if string(b[:n]) != "old file\n" {
		fail("the descriptor opened before the replacement reads %q", b[:n])
	}
	names, err := os.ReadDir("/data")
	check("readdir", err)
	for _, e := range names {
		if e.Name() == "gone.txt" {
			fail("gone.txt is still listed after the host removed it")
		}
	}
	if _, err := os.Stat("/data/gone.txt"); !errors.Is(err, os.ErrNotExist) {
		fail("gone.txt after the host removed it: %v", err)
	}
	fmt.Println("host changes seen during the run")
}

// exdev: renames and links between the share, the in-memory tree and a
// second share fail with EXDEV, as across mounts on Linux.
func exdev() {
	check("write", os.WriteFile("/data/x.txt", []byte("x\n"), 0o644))
	check("write tmp", os.WriteFile("/tmp/y.txt", []byte("y\n"), 0o644))
	for _, c := range [][2]string{
		{"/data/x.txt", "/tmp/x.txt"}, {"/tmp/y.txt", "/data/y.txt"}, {"/data/x.txt", "/other/x.txt"},
	} {
		if err := os.Rename(c[0], c[1]); !errors.Is(err, syscall.EXDEV) {
			fail("rename %s %s: %v, want EXDEV", c[0], c[1], err)
		}
	}
	if err := os.Link("/data/x.txt", "/tmp/l.txt"); !errors.Is(err, syscall.EXDEV) {
		fail("link out of the share: %v, want EXDEV", err)
	}
	check("rename inside", os.Rename("/data/x.txt", "/data/z.txt"))
	check("link inside", os.Link("/data/z.txt", "/data/hard.txt"))
	fmt.Println("renames across mounts: EXDEV")
}

// mmapMsync stores through a shared mapping of a share's file, msyncs and
// hangs: the host must have the stores though the run never exits.
func mmapMsync() {
	f, err := os.OpenFile("/data/mapped.bin", os.O_RDWR|os.O_CREATE, 0o644)
	check("create", err)
	check("truncate", f.Truncate(8192))
	m, err := syscall.Mmap(int(f.Fd()), 0, 8192, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	check("mmap", err)
	copy(m[4096+7:], "stored through the mapping")
	_, _, e := syscall.Syscall(syscall.SYS_MSYNC, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), 4 /* MS_SYNC */)
	if e != 0 {
		fail("msync: %v", e)
	}
	hang("msynced")
}

// streamBig reads /data/big.in (bigger than the machine's memory) through, and
// writes a copy of it as /data/big.out, printing the digest of what it read.
func streamBig() {
	in, err := os.Open("/data/big.in")
	check("open", err)
	out, err := os.Create("/data/big.out")
	check("create", err)
	h := sha256.New()
	n, err := io.CopyBuffer(io.MultiWriter(out, h), in, make([]byte, 1<<20))
	check("copy", err)
	check("close", out.Close())
	st, err := os.Stat("/data/big.out")
	check("stat", err)
	if st.Size() != n {
		fail("big.out is %d bytes, copied %d", st.Size(), n)
	}
	fmt.Printf("streamed %d bytes, sha256 %x\n", n, h.Sum(nil))
}
