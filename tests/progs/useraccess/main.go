// Command useraccess hands every system call that takes a user range
// ranges that are not the program's and expects Linux's answer: its
// access_ok check, made before any file or socket sees the call, fails a
// kernel address, a range that runs from a user address past the top of
// user space, and one that wraps around, with EFAULT, even where the file
// would never look at the bytes (a write to /dev/null, a read from
// /dev/zero) and even for zero bytes at a kernel address. Calls that
// clamp the length first (import_ubuf: sendto, recvfrom, getrandom) only
// fail the kernel address. Iovecs are all checked before any byte moves;
// calls that copy a struct or a result (stat, getdents64, readlinkat,
// sockopts, ppoll, futex) answer EFAULT for a kernel address too, and
// ppoll of no entries looks at nothing. The same program passes on Linux.
package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// kernelAddr is in the kernel half on gometal and on every riscv64 and
// arm64 Linux (Sv39 to Sv57, 39 to 52-bit VAs).
const kernelAddr = 0xffffffc080200000

// huge runs from any user address past the top of any user half, and is
// still positive as a ssize_t (an iovec's length that is not is EINVAL).
const huge = 1 << 62

// wrapAddr with 0x2000 bytes wraps around the top of the address space: a
// check that adds first (addr + len <= top) would let it through.
const wrapAddr = 0xffff_ffff_ffff_f000

const (
	sysGetrandom  = 278
	sysNewfstatat = 79
	sysPreadv     = 69
	sysPwritev    = 70
	sysPreadv2    = 286
	sysPwritev2   = 287
	sysRecvmmsg   = 243
	sysSendmmsg   = 269
	grndInsecure  = 4
	futexWakePriv = 1 | 128
)

var failed bool

func fail(format string, args ...any) {
	fmt.Printf("FAIL useraccess: "+format+"\n", args...)
	failed = true
}

func sys(nr uintptr, a ...uintptr) (uintptr, syscall.Errno) {
	var r [6]uintptr
	copy(r[:], a)
	n, _, e := syscall.Syscall6(nr, r[0], r[1], r[2], r[3], r[4], r[5])
	return n, e
}

// How Linux checks a call's range.
type check int

const (
	whole   check = iota // the whole (pointer, length): vfs_read, vfs_write, import_iovec
	clamped              // the length clamped to MAX_RW_COUNT first: import_ubuf
	array                // (pointer, int count) of events: epoll_wait
)

type rangeCase struct {
	name  string
	check check
	call  func(p, n uintptr) (uintptr, syscall.Errno)
}

// notCrossed: calls not tried with ranges that reach past the top, and why.
var notCrossed = map[string]string{
	"sendto": "Linux refuses a datagram that long (EMSGSIZE) before it reads a byte; gometal reads first (EFAULT)",
}

func main() {
	// A read-write page followed by a PROT_NONE one: a clamped range from
	// it is short, never past it.
	mem, err := syscall.Mmap(-1, 0, 8192, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	must(err)
	must(syscall.Mprotect(mem[4096:], syscall.PROT_NONE))
	page := uintptr(unsafe.Pointer(&mem[0]))

	for _, c := range rangeCases() {
		tryRange(c, page)
	}
	iovecsFirst(page)
	copied(page)
	if failed {
		os.Exit(1)
	}
	fmt.Println("PASS useraccess")
}

// tryRange: a kernel address (16 bytes and 0), a range that wraps, one
// from the page past the top of user space; then the page itself, which
// must work.
func tryRange(c rangeCase, page uintptr) {
	expect := func(what string, p, n uintptr, fault bool) {
		r, e := c.call(p, n)
		if fault && e != syscall.EFAULT {
			fail("%s(%s) = %d, %v; want EFAULT", c.name, what, r, e)
		} else if !fault && e == syscall.EFAULT {
			fail("%s(%s) = EFAULT; Linux clamps the length before its check", c.name, what)
		}
	}
	expect("kernel address", kernelAddr, 16, true)
	if c.check == array { // an int count: 0 is EINVAL, nothing can wrap
		expect("the page, 4 events", page, 4, false)
		fmt.Printf("useraccess: %s: kernel address EFAULT\n", c.name)
		return
	}
	expect("kernel address, 0 bytes", kernelAddr, 0, true)
	expect("a range that wraps", wrapAddr, 0x2000, true)
	if _, skip := notCrossed[c.name]; !skip {
		expect("page, 2^62 bytes", page, huge, c.check == whole)
	}
	if r, e := c.call(page, 16); e != 0 {
		fail("%s(page, 16) = %d, %v; want it to work", c.name, r, e)
	}
	past := "past the top: EFAULT"
	if c.check == clamped {
		past = "past the top: clamped first, no EFAULT"
	}
	if why, skip := notCrossed[c.name]; skip {
		past = "past the top: not tried (" + why + ")"
	}
	fmt.Printf("useraccess: %s: kernel address, wrapping: EFAULT; %s\n", c.name, past)
}

func rangeCases() []rangeCase {
	null := open("/dev/null", syscall.O_WRONLY)
	zero := open("/dev/zero", syscall.O_RDONLY)
	must(os.WriteFile("/tmp/useraccess", make([]byte, 64), 0o644))
	file := open("/tmp/useraccess", syscall.O_RDWR)
	udp, to := udpSocket()
	epfd, err := syscall.EpollCreate1(0)
	must(err)
	iov := func(fd int, nr uintptr, p, n uintptr) (uintptr, syscall.Errno) {
		v := [2]uintptr{p, n}
		return sys(nr, uintptr(fd), uintptr(unsafe.Pointer(&v)), 1)
	}
	// preadv, pwritev (and their 2 forms, flags 0) at offset 0 of the file.
	piov := func(nr uintptr, p, n uintptr) (uintptr, syscall.Errno) {
		v := [2]uintptr{p, n}
		return sys(nr, uintptr(file), uintptr(unsafe.Pointer(&v)), 1, 0, 0, 0)
	}
	msg := func(nr uintptr, p, n uintptr, flags uintptr) (uintptr, syscall.Errno) {
		v := [2]uintptr{p, n}
		h := syscall.Msghdr{Iov: (*syscall.Iovec)(unsafe.Pointer(&v)), Iovlen: 1}
		if nr == syscall.SYS_SENDMSG {
			h.Name, h.Namelen = (*byte)(unsafe.Pointer(&to)), uint32(unsafe.Sizeof(to))
		}
		return sys(nr, uintptr(udp), uintptr(unsafe.Pointer(&h)), flags)
	}
	return []rangeCase{
		{"write", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return sys(syscall.SYS_WRITE, uintptr(null), p, n) }},
		{"read", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return sys(syscall.SYS_READ, uintptr(zero), p, n) }},
		{"pread64", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return sys(syscall.SYS_PREAD64, uintptr(file), p, n, 0) }},
		{"pwrite64", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return sys(syscall.SYS_PWRITE64, uintptr(file), p, n, 0) }},
		{"readv", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return iov(zero, syscall.SYS_READV, p, n) }},
		{"writev", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return iov(null, syscall.SYS_WRITEV, p, n) }},
		{"preadv", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return piov(sysPreadv, p, n) }},
		{"pwritev", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return piov(sysPwritev, p, n) }},
		{"preadv2", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return piov(sysPreadv2, p, n) }},
		{"pwritev2", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return piov(sysPwritev2, p, n) }},
		{"sendmsg", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return msg(syscall.SYS_SENDMSG, p, n, 0) }},
		{"recvmsg", whole, func(p, n uintptr) (uintptr, syscall.Errno) {
			send(udp, to) // something to receive, so that the good call works
			return msg(syscall.SYS_RECVMSG, p, n, syscall.MSG_DONTWAIT)
		}},
		{"sendmmsg", whole, func(p, n uintptr) (uintptr, syscall.Errno) { return mmsg(sysSendmmsg, udp, &to, p, n) }},
		{"recvmmsg", whole, func(p, n uintptr) (uintptr, syscall.Errno) {
			send(udp, to)
			return mmsg(sysRecvmmsg, udp, nil, p, n)
		}},
		{"getrandom", clamped, func(p, n uintptr) (uintptr, syscall.Errno) {
			r, e := sys(sysGetrandom, p, n, grndInsecure)
			if e == 0 && r > 4096 {
				fail("getrandom wrote %d bytes past a PROT_NONE page", r)
			}
			return r, e
		}},
		{"sendto", clamped, func(p, n uintptr) (uintptr, syscall.Errno) {
			return sys(syscall.SYS_SENDTO, uintptr(udp), p, n, 0, uintptr(unsafe.Pointer(&to)), unsafe.Sizeof(to))
		}},
		{"recvfrom", clamped, func(p, n uintptr) (uintptr, syscall.Errno) {
			send(udp, to)
			return sys(syscall.SYS_RECVFROM, uintptr(udp), p, n, syscall.MSG_DONTWAIT, 0, 0)
		}},
		{"epoll_pwait", array, func(p, n uintptr) (uintptr, syscall.Errno) {
			return sys(syscall.SYS_EPOLL_PWAIT, uintptr(epfd), p, n, 0, 0, 8)
		}},
	}
}

// iovecsFirst: every iovec is checked before any byte moves (the pipe
// keeps its bytes), and an iovec array that is not the program's is EFAULT.
func iovecsFirst(page uintptr) {
	var p [2]int
	must(syscall.Pipe2(p[:], syscall.O_NONBLOCK)) // a kernel that consumed the bytes must not hang the test
	_, err := syscall.Write(p[1], []byte("hello"))
	must(err)
	v := [4]uintptr{page, 5, kernelAddr, 5}
	if _, e := sys(syscall.SYS_READV, uintptr(p[0]), uintptr(unsafe.Pointer(&v)), 2); e != syscall.EFAULT {
		fail("readv(pipe, {page, kernel address}) = %v; want EFAULT", e)
	}
	buf := make([]byte, 16)
	if n, err := syscall.Read(p[0], buf); err != nil || string(buf[:n]) != "hello" {
		fail("after the failed readv the pipe holds %q, %v; want hello", buf[:n], err)
	}
	if _, e := sys(syscall.SYS_WRITEV, uintptr(p[1]), kernelAddr, 1); e != syscall.EFAULT {
		fail("writev(pipe, iovecs at a kernel address) = %v; want EFAULT", e)
	}
	if n, e := sys(syscall.SYS_READV, uintptr(p[0]), kernelAddr, 0); e != 0 || n != 0 {
		fail("readv(pipe, kernel address, 0 iovecs) = %d, %v; want 0 (nothing read)", n, e)
	}
	// A length negative as a ssize_t is EINVAL, whatever the address:
	// checked over the whole array before any range.
	v = [4]uintptr{kernelAddr, 5, page, 1 << 63}
	if _, e := sys(syscall.SYS_WRITEV, uintptr(p[1]), uintptr(unsafe.Pointer(&v)), 2); e != syscall.EINVAL {
		fail("writev(pipe, {kernel address, 5}, {page, 2^63}) = %v; want EINVAL", e)
	}
	fmt.Println("useraccess: iovecs checked before a byte moves")
}

// copied: calls that check what they copy, when they copy it.
func copied(page uintptr) {
	dir := open("/", syscall.O_RDONLY|syscall.O_DIRECTORY)
	must(syscall.Symlink("/tmp/useraccess", "/tmp/useraccess-link"))
	udp, _ := udpSocket()
	epfd, err := syscall.EpollCreate1(0)
	must(err)
	path := func(s string) uintptr { b, _ := syscall.BytePtrFromString(s); return uintptr(unsafe.Pointer(b)) }
	n := uint32(4)
	ts := syscall.Timespec{}
	for _, c := range []struct {
		name string
		call func() (uintptr, syscall.Errno)
	}{
		{"fstat", func() (uintptr, syscall.Errno) { return sys(syscall.SYS_FSTAT, uintptr(dir), kernelAddr) }},
		{"newfstatat path", func() (uintptr, syscall.Errno) { return sys(sysNewfstatat, ^uintptr(99), kernelAddr, page, 0) }},
		{"newfstatat out", func() (uintptr, syscall.Errno) { return sys(sysNewfstatat, ^uintptr(99), path("/"), kernelAddr, 0) }},
		{"getdents64", func() (uintptr, syscall.Errno) { return sys(syscall.SYS_GETDENTS64, uintptr(dir), kernelAddr, 4096) }},
		{"getcwd", func() (uintptr, syscall.Errno) { return sys(syscall.SYS_GETCWD, kernelAddr, 4096) }},
		{"readlinkat", func() (uintptr, syscall.Errno) {
			return sys(syscall.SYS_READLINKAT, ^uintptr(99), path("/tmp/useraccess-link"), kernelAddr, 64)
		}},
		{"uname", func() (uintptr, syscall.Errno) { return sys(syscall.SYS_UNAME, kernelAddr) }},
		{"pipe2", func() (uintptr, syscall.Errno) { return sys(syscall.SYS_PIPE2, kernelAddr, 0) }},
		{"ioctl FIONREAD", func() (uintptr, syscall.Errno) {
			return sys(syscall.SYS_IOCTL, uintptr(udp), syscall.TIOCINQ, kernelAddr)
		}},
		{"getsockopt", func() (uintptr, syscall.Errno) {
			return sys(syscall.SYS_GETSOCKOPT, uintptr(udp), syscall.SOL_SOCKET, syscall.SO_TYPE, kernelAddr, uintptr(unsafe.Pointer(&n)))
		}},
		{"setsockopt", func() (uintptr, syscall.Errno) {
			return sys(syscall.SYS_SETSOCKOPT, uintptr(udp), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, kernelAddr, 4)
		}},
		{"ppoll", func() (uintptr, syscall.Errno) {
			return sys(syscall.SYS_PPOLL, kernelAddr, 1, uintptr(unsafe.Pointer(&ts)), 0, 8)
		}},
		{"futex", func() (uintptr, syscall.Errno) { return sys(syscall.SYS_FUTEX, kernelAddr, futexWakePriv, 1) }},
		{"epoll_ctl", func() (uintptr, syscall.Errno) {
			return sys(syscall.SYS_EPOLL_CTL, uintptr(epfd), syscall.EPOLL_CTL_ADD, uintptr(udp), kernelAddr)
		}},
		{"sched_getaffinity", func() (uintptr, syscall.Errno) { return sys(syscall.SYS_SCHED_GETAFFINITY, 0, 128, kernelAddr) }},
		{"clock_gettime", func() (uintptr, syscall.Errno) { return sys(syscall.SYS_CLOCK_GETTIME, 1, kernelAddr) }},
		{"getrusage", func() (uintptr, syscall.Errno) { return sys(syscall.SYS_GETRUSAGE, 0, kernelAddr) }},
		{"bind", func() (uintptr, syscall.Errno) { return sys(syscall.SYS_BIND, uintptr(udp), kernelAddr, 16) }},
		{"getsockname", func() (uintptr, syscall.Errno) {
			l := uint32(16)
			return sys(syscall.SYS_GETSOCKNAME, uintptr(udp), kernelAddr, uintptr(unsafe.Pointer(&l)))
		}},
	} {
		if r, e := c.call(); e != syscall.EFAULT {
			fail("%s with a kernel address = %d, %v; want EFAULT", c.name, r, e)
		}
	}
	// poll of no entries reads none: no check (Linux copies nothing).
	if r, e := sys(syscall.SYS_PPOLL, kernelAddr, 0, uintptr(unsafe.Pointer(&ts)), 0, 8); e != 0 || r != 0 {
		fail("ppoll(kernel address, 0 entries) = %d, %v; want 0", r, e)
	}
	fmt.Println("useraccess: copies through a kernel address EFAULT")
}

func udpSocket() (int, syscall.RawSockaddrInet4) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	must(err)
	must(syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := syscall.Getsockname(fd)
	must(err)
	port := sa.(*syscall.SockaddrInet4).Port
	to := syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: [4]byte{127, 0, 0, 1}}
	to.Port = uint16(port>>8) | uint16(port&0xff)<<8
	return fd, to
}

// send queues one datagram on the socket, to itself.
func send(fd int, to syscall.RawSockaddrInet4) {
	if _, e := sys(syscall.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&to)), 4, 0, uintptr(unsafe.Pointer(&to)), unsafe.Sizeof(to)); e != 0 {
		fail("sendto: %v", e)
	}
}

// mmsg makes a one-element sendmmsg or recvmmsg whose iovec is (p, n).
func mmsg(nr uintptr, fd int, to *syscall.RawSockaddrInet4, p, n uintptr) (uintptr, syscall.Errno) {
	v := [2]uintptr{p, n}
	var m struct {
		hdr syscall.Msghdr
		len uint32
		_   uint32
	}
	m.hdr.Iov, m.hdr.Iovlen = (*syscall.Iovec)(unsafe.Pointer(&v)), 1
	flags := uintptr(syscall.MSG_DONTWAIT)
	if to != nil {
		m.hdr.Name, m.hdr.Namelen = (*byte)(unsafe.Pointer(to)), uint32(unsafe.Sizeof(*to))
		flags = 0
	}
	return sys(nr, uintptr(fd), uintptr(unsafe.Pointer(&m)), 1, flags, 0)
}

func open(path string, flags int) int {
	fd, err := syscall.Open(path, flags, 0)
	must(err)
	return fd
}

func must(err error) {
	if err != nil {
		fmt.Println("FAIL useraccess:", err)
		os.Exit(1)
	}
}
