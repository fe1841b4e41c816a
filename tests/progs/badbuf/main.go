// Command badbuf hands read, write, epoll_pwait and futex bad or partly
// mapped buffers and checks Linux's answers: EFAULT with nothing consumed
// (file offset, pipe bytes, eventfd count, an edge-triggered event), short
// transfers where only the start of a buffer is mapped, and futex's
// argument errors.
package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

const kernelAddr = 0xffffffc080200000

var failed bool

func check(what string, got, want any) {
	if got != want {
		fmt.Printf("FAIL badbuf: %s: got %v, want %v\n", what, got, want)
		failed = true
		return
	}
	fmt.Printf("ok: %s: %v\n", what, want)
}

func sys(nr, a, b, c uintptr) (uintptr, syscall.Errno) {
	r, _, e := syscall.Syscall(nr, a, b, c)
	return r, e
}

func sys6(nr, a, b, c, d, e, f uintptr) (uintptr, syscall.Errno) {
	r, _, errno := syscall.Syscall6(nr, a, b, c, d, e, f)
	return r, errno
}

func offset(fd int) int64 {
	off, err := syscall.Seek(fd, 0, 1)
	if err != nil {
		panic(err)
	}
	return off
}

func main() {
	// Two pages: the first read-write, the second PROT_NONE.
	mem, err := syscall.Mmap(-1, 0, 8192, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		panic(err)
	}
	if err := syscall.Mprotect(mem[4096:], syscall.PROT_NONE); err != nil {
		panic(err)
	}
	good := uintptr(unsafe.Pointer(&mem[0]))
	none := good + 4096

	files(good, none)
	pipeAndEventfd(good, none)
	epoll(good, none)
	futex()
	if failed {
		os.Exit(1)
	}
	fmt.Println("PASS badbuf")
}

func files(good, none uintptr) {
	if err := os.WriteFile("/tmp/12k", make([]byte, 12288), 0o644); err != nil {
		panic(err)
	}
	fd, err := syscall.Open("/tmp/12k", syscall.O_RDONLY, 0)
	if err != nil {
		panic(err)
	}
	_, e := sys(syscall.SYS_READ, uintptr(fd), kernelAddr, 100)
	check("read(file, kernel address)", e, syscall.EFAULT)
	check("offset after it", offset(fd), int64(0))
	_, e = sys(syscall.SYS_READ, uintptr(fd), none, 100)
	check("read(file, PROT_NONE page)", e, syscall.EFAULT)
	check("offset after it", offset(fd), int64(0))
	n, e := sys(syscall.SYS_READ, uintptr(fd), good, 1<<30)
	check("read(12 KiB file, 1 GiB buffer mapped for 4 KiB)", [2]any{n, e}, [2]any{uintptr(4096), syscall.Errno(0)})
	check("offset after it", offset(fd), int64(4096))
	syscall.Close(fd)

	out, err := syscall.Open("/tmp/out", syscall.O_CREAT|syscall.O_WRONLY|syscall.O_TRUNC, 0o644)
	if err != nil {
		panic(err)
	}
	n, e = sys(syscall.SYS_WRITE, uintptr(out), good, 1<<30)
	check("write(file, 1 GiB buffer mapped for 4 KiB)", [2]any{n, e}, [2]any{uintptr(4096), syscall.Errno(0)})
	_, e = sys(syscall.SYS_WRITE, uintptr(out), none, 100)
	check("write(file, PROT_NONE page)", e, syscall.EFAULT)
	syscall.Close(out)
	st, _ := os.Stat("/tmp/out")
	check("size written", st.Size(), int64(4096))

	// A link named "." or ".." must not be created (it would be invisible
	// in listings and make its directory impossible to remove).
	os.Mkdir("/tmp/d", 0o755)
	for _, name := range []string{"/tmp/d/.", "/tmp/d/.."} {
		check("link to "+name, os.Link("/tmp/out", name) != nil, true)
	}
	check("rmdir after the links", os.Remove("/tmp/d"), error(nil))
	_, e = sys6(syscall.SYS_MPROTECT, good, 0, syscall.PROT_READ, 0, 0, 0)
	check("mprotect of 0 bytes", e, syscall.Errno(0))
	_, e = sys6(syscall.SYS_MPROTECT, good, 4096, 0x400, 0, 0, 0)
	check("mprotect with an unknown bit", e, syscall.EINVAL)
}

func pipeAndEventfd(good, none uintptr) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_NONBLOCK); err != nil {
		panic(err)
	}
	syscall.Write(p[1], []byte("hello"))
	_, e := sys(syscall.SYS_READ, uintptr(p[0]), kernelAddr, 5)
	check("read(pipe, kernel address)", e, syscall.EFAULT)
	_, e = sys(syscall.SYS_READ, uintptr(p[0]), none, 5)
	check("read(pipe, PROT_NONE page)", e, syscall.EFAULT)
	buf := make([]byte, 16)
	n, _ := syscall.Read(p[0], buf)
	n = max(n, 0)
	check("the pipe's bytes after them", string(buf[:n]), "hello")

	efd, _, e := syscall.RawSyscall(syscall.SYS_EVENTFD2, 7, syscall.O_NONBLOCK, 0)
	if e != 0 {
		panic(e)
	}
	_, e = sys(syscall.SYS_READ, efd, kernelAddr, 8)
	check("read(eventfd, kernel address)", e, syscall.EFAULT)
	_, e = sys(syscall.SYS_READ, efd, none-4, 8)
	check("read(eventfd, half-mapped 8 bytes)", e, syscall.EFAULT)
	var count uint64
	_, e = sys(syscall.SYS_READ, efd, uintptr(unsafe.Pointer(&count)), 8)
	check("the eventfd count after them", [2]any{count, e}, [2]any{uint64(7), syscall.Errno(0)})
}

func epoll(good, none uintptr) {
	ep, err := syscall.EpollCreate1(0)
	if err != nil {
		panic(err)
	}
	efd, _, _ := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, syscall.O_NONBLOCK, 0)
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | 1<<31 /* EPOLLET */}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, int(efd), &ev); err != nil {
		panic(err)
	}
	one := uint64(1)
	syscall.Write(int(efd), (*[8]byte)(unsafe.Pointer(&one))[:])
	_, e := sys6(syscall.SYS_EPOLL_PWAIT, uintptr(ep), kernelAddr, 1, 0, 0, 0)
	check("epoll_pwait(kernel address)", e, syscall.EFAULT)
	_, e = sys6(syscall.SYS_EPOLL_PWAIT, uintptr(ep), none, 1, 1000, 0, 0)
	check("epoll_pwait(PROT_NONE page, 1 s)", e, syscall.EFAULT)
	events := make([]syscall.EpollEvent, 4)
	n, err := syscall.EpollWait(ep, events, 0)
	check("the edge-triggered event after them", [2]any{n, err}, [2]any{1, error(nil)})
}

func futex() {
	word := new([2]uint32)
	addr := uintptr(unsafe.Pointer(&word[0]))
	const wait, wake, waitBitset, private = 0, 1, 9, 128
	_, e := sys6(syscall.SYS_FUTEX, kernelAddr, wake|private, 1, 0, 0, 0)
	check("futex WAKE on a kernel address", e, syscall.EFAULT)
	_, e = sys6(syscall.SYS_FUTEX, addr+1, wake|private, 1, 0, 0, 0)
	check("futex WAKE on a misaligned word", e, syscall.EINVAL)
	_, e = sys6(syscall.SYS_FUTEX, addr+2, wait|private, 0, 0, 0, 0)
	check("futex WAIT on a misaligned word", e, syscall.EINVAL)
	var ts syscall.Timespec // an absolute deadline 100 ms from now
	sys(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	ts.Nsec += 100e6
	if ts.Nsec >= 1e9 {
		ts.Sec, ts.Nsec = ts.Sec+1, ts.Nsec-1e9
	}
	_, e = sys6(syscall.SYS_FUTEX, addr, waitBitset|private, 0, uintptr(unsafe.Pointer(&ts)), 0, 0)
	check("futex WAIT_BITSET with bitset 0", e, syscall.EINVAL)
}
