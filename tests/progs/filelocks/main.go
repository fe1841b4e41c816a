// Command filelocks checks advisory locks as Linux keeps them: fcntl POSIX
// record locks (owned by the process), OFD locks (owned by the open file
// description), flock (whole file, its own table), waits that end when the
// holder lets go, release on close, and file sizes and offsets far past
// what fits in memory (pread/pwrite/ftruncate/fallocate at 512 GiB).
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"
)

const (
	fOFDGetlk  = 36
	fOFDSetlk  = 37
	fOFDSetlkw = 38
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL filelocks: "+format+"\n", a...)
	os.Exit(1)
}

func check(what string, err error) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func open(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	check("open "+path, err)
	return f
}

func lk(kind int16, start, length int64) *syscall.Flock_t {
	return &syscall.Flock_t{Type: kind, Whence: 0, Start: start, Len: length}
}

func fcntl(f *os.File, cmd int, l *syscall.Flock_t) error {
	return syscall.FcntlFlock(f.Fd(), cmd, l)
}

func main() {
	dir, err := os.MkdirTemp("", "locks-*")
	check("MkdirTemp", err)
	path := dir + "/db"
	a, b := open(path), open(path)

	// OFD locks: two open file descriptions conflict even in one process.
	check("OFD write lock on a", fcntl(a, fOFDSetlk, lk(syscall.F_WRLCK, 0, 100)))
	if err := fcntl(b, fOFDSetlk, lk(syscall.F_RDLCK, 50, 10)); err != syscall.EAGAIN {
		fail("OFD read lock on b over a's write lock: %v, want EAGAIN", err)
	}
	q := lk(syscall.F_WRLCK, 0, 0)
	check("OFD getlk", fcntl(b, fOFDGetlk, q))
	if q.Type != syscall.F_WRLCK || q.Start != 0 || q.Len != 100 || q.Pid != -1 {
		fail("OFD getlk: %+v, want a write lock 0+100 pid -1", *q)
	}
	check("OFD lock past a's range", fcntl(b, fOFDSetlk, lk(syscall.F_RDLCK, 100, 10)))
	if err := fcntl(b, fOFDSetlk, &syscall.Flock_t{Type: syscall.F_RDLCK, Len: 1, Pid: 7}); err != syscall.EINVAL {
		fail("OFD lock with l_pid set: %v, want EINVAL", err)
	}

	// POSIX locks: the process never conflicts with itself, but does with
	// an OFD lock.
	c := open(path)
	check("POSIX lock on c", fcntl(c, syscall.F_SETLK, lk(syscall.F_WRLCK, 1000, 10)))
	check("POSIX lock on a, same process", fcntl(a, syscall.F_SETLK, lk(syscall.F_WRLCK, 1000, 10)))
	q = lk(syscall.F_WRLCK, 1000, 1)
	check("POSIX getlk", fcntl(a, syscall.F_GETLK, q))
	if q.Type != syscall.F_UNLCK {
		fail("POSIX getlk in the owning process: %+v, want F_UNLCK", *q)
	}
	if err := fcntl(b, fOFDSetlk, lk(syscall.F_RDLCK, 1005, 1)); err != syscall.EAGAIN {
		fail("OFD lock over a POSIX lock: %v, want EAGAIN", err)
	}
	q = lk(syscall.F_RDLCK, 1005, 1)
	check("OFD getlk of a POSIX lock", fcntl(b, fOFDGetlk, q))
	if q.Type != syscall.F_WRLCK || q.Start != 1000 || q.Len != 10 || q.Pid != int32(os.Getpid()) {
		fail("OFD getlk of a POSIX lock: %+v, want 1000+10 pid %d", *q, os.Getpid())
	}
	// Closing any descriptor of the file drops the process's POSIX locks.
	d := open(path)
	check("close d", d.Close())
	check("OFD lock after the POSIX lock's close", fcntl(b, fOFDSetlk, lk(syscall.F_RDLCK, 1005, 1)))
	check("close c", c.Close())
	// The process's POSIX locks meet a's own OFD lock as another owner's.
	if err := fcntl(a, syscall.F_SETLK, lk(syscall.F_RDLCK, 0, 1)); err != syscall.EAGAIN {
		fail("POSIX read lock over a's OFD write lock: %v, want EAGAIN", err)
	}

	// A read lock needs a descriptor open for reading.
	wo, err := os.OpenFile(path, os.O_WRONLY, 0)
	check("open write-only", err)
	if err := fcntl(wo, syscall.F_SETLK, lk(syscall.F_RDLCK, 5000, 1)); err != syscall.EBADF {
		fail("read lock on a write-only fd: %v, want EBADF", err)
	}
	wo.Close()

	// F_OFD_SETLKW from another thread waits until a lets go.
	waitForRelease("OFD", func() error { return fcntl(b, fOFDSetlkw, lk(syscall.F_WRLCK, 0, 10)) },
		func() error { return fcntl(a, fOFDSetlk, lk(syscall.F_UNLCK, 0, 0)) })
	check("unlock b", fcntl(b, fOFDSetlk, lk(syscall.F_UNLCK, 0, 0)))

	// flock: whole file, per open file description, separate from fcntl.
	check("flock a", syscall.Flock(int(a.Fd()), syscall.LOCK_EX))
	if err := syscall.Flock(int(b.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != syscall.EWOULDBLOCK {
		fail("flock b over a's: %v, want EWOULDBLOCK", err)
	}
	check("fcntl lock beside flock", fcntl(b, fOFDSetlk, lk(syscall.F_WRLCK, 0, 0)))
	check("unlock b", fcntl(b, fOFDSetlk, lk(syscall.F_UNLCK, 0, 0)))
	waitForRelease("flock", func() error { return syscall.Flock(int(b.Fd()), syscall.LOCK_EX) },
		func() error { return syscall.Flock(int(a.Fd()), syscall.LOCK_UN) })
	// Closing the last descriptor of b releases its flock.
	check("close b", b.Close())
	check("flock a after b closed", syscall.Flock(int(a.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	fmt.Println("locks: OFD, POSIX, flock, waits and close all as on Linux")

	bigOffsets(a)
	fmt.Println("PASS filelocks")
}

// waitForRelease runs take on a thread of its own, checks it is still
// waiting a while later, runs release, and checks take then returns.
func waitForRelease(what string, take, release func() error) {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		done <- take()
	}()
	select {
	case err := <-done:
		fail("%s: a waiting lock returned at once: %v", what, err)
	case <-time.After(200 * time.Millisecond):
	}
	check(what+" release", release())
	select {
	case err := <-done:
		check(what+" waiting lock", err)
	case <-time.After(5 * time.Second):
		fail("%s: the waiting lock was not granted after release", what)
	}
}

// bigOffsets writes and reads at 512 GiB in a sparse file.
func bigOffsets(f *os.File) {
	const far = int64(512) << 30
	msg := []byte("far away")
	n, err := f.WriteAt(msg, far)
	check("pwrite at 512 GiB", err)
	got := make([]byte, len(msg))
	_, err = f.ReadAt(got, far)
	check("pread at 512 GiB", err)
	if string(got) != string(msg) || n != len(msg) {
		fail("pread at 512 GiB: %q", got)
	}
	st, err := f.Stat()
	check("stat", err)
	if st.Size() != far+int64(len(msg)) {
		fail("size after pwrite at 512 GiB: %d", st.Size())
	}
	check("ftruncate to 1 MiB", f.Truncate(1<<20))
	check("fallocate to 2 MiB", syscall.Fallocate(int(f.Fd()), 0, 0, 2<<20))
	st, _ = f.Stat()
	if st.Size() != 2<<20 {
		fail("size after fallocate: %d", st.Size())
	}
	check("fallocate keep size", syscall.Fallocate(int(f.Fd()), 1, 0, 4<<20))
	if st, _ = f.Stat(); st.Size() != 2<<20 {
		fail("size after fallocate KEEP_SIZE: %d", st.Size())
	}
	if err := f.Truncate(int64(1) << 41); !errors.Is(err, syscall.EFBIG) {
		fail("ftruncate past the largest file: %v, want EFBIG", err)
	}
	fmt.Println("offsets: pwrite/pread at 512 GiB, ftruncate, fallocate ok")
}
