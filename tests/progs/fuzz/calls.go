package main

import (
	"math/rand/v2"
	"syscall"
	"unsafe"
)

// kind is what an argument position holds; each kind has adversarial values.
type kind uint8

const (
	kZero   kind = iota
	kInt         // small numbers, extremes
	kFD          // the fuzzer's own descriptors, and bad ones
	kBuf         // the scratch area, its edges, unmapped and kernel addresses
	kLen         // 0, 1, page sizes, huge
	kOff         // file offsets
	kPath        // paths under /tmp/fuzz, bad pointers, unterminated strings
	kFlags       // random bits
	kTime        // a 1 ms timespec or a bad pointer (never a long wait)
	kScr         // an address in the scratch area (mmap family)
	kScrLen      // a length that stays inside the scratch area
)

// call is a system call and what each argument position holds. fix, if
// set, adjusts the arguments so the call cannot block the fuzzer forever or
// harm the Go runtime (the kernel's robustness is under test, not Go's).
type call struct {
	nr   uintptr
	args [6]kind
	fix  func(a *[6]uintptr, r *rand.Rand)
}

const (
	oNonblock  = syscall.O_NONBLOCK
	kernelAddr = 0xffffffc080200000
)

func nonblock(i int) func(*[6]uintptr, *rand.Rand) {
	return func(a *[6]uintptr, _ *rand.Rand) { a[i] |= oNonblock }
}

var calls = []call{
	{nr: syscall.SYS_READ, args: [6]kind{kFD, kBuf, kLen}},
	{nr: syscall.SYS_WRITE, args: [6]kind{kFD, kBuf, kLen}},
	{nr: syscall.SYS_READV, args: [6]kind{kFD, kBuf, kInt}},
	{nr: syscall.SYS_WRITEV, args: [6]kind{kFD, kBuf, kInt}},
	{nr: syscall.SYS_PREAD64, args: [6]kind{kFD, kBuf, kLen, kOff}},
	{nr: syscall.SYS_PWRITE64, args: [6]kind{kFD, kBuf, kLen, kOff}},
	{nr: syscall.SYS_OPENAT, args: [6]kind{kFD, kPath, kFlags, kInt}, fix: nonblock(2)},
	{nr: syscall.SYS_CLOSE, args: [6]kind{kFD}},
	{nr: syscall.SYS_LSEEK, args: [6]kind{kFD, kOff, kInt}},
	{nr: syscall.SYS_FCNTL, args: [6]kind{kFD, kInt, kInt}, fix: func(a *[6]uintptr, _ *rand.Rand) {
		if a[1] == syscall.F_SETFL {
			a[2] |= oNonblock
		}
	}},
	{nr: syscall.SYS_IOCTL, args: [6]kind{kFD, kInt, kBuf}, fix: func(a *[6]uintptr, _ *rand.Rand) {
		if a[1] == 0x5421 { // FIONBIO could make a descriptor blocking
			a[1] = syscall.TCGETS
		}
	}},
	{nr: syscall.SYS_DUP, args: [6]kind{kFD}},
	{nr: syscall.SYS_DUP3, args: [6]kind{kFD, kFD, kFlags}},
	{nr: syscall.SYS_PIPE2, args: [6]kind{kBuf, kFlags}, fix: nonblock(1)},
	{nr: syscall.SYS_FTRUNCATE, args: [6]kind{kFD, kOff}},
	{nr: syscall.SYS_TRUNCATE, args: [6]kind{kPath, kOff}},
	{nr: syscall.SYS_FSYNC, args: [6]kind{kFD}},
	{nr: syscall.SYS_GETCWD, args: [6]kind{kBuf, kLen}},
	{nr: syscall.SYS_FCHDIR, args: [6]kind{kFD}},
	{nr: syscall.SYS_GETDENTS64, args: [6]kind{kFD, kBuf, kLen}},
	{nr: syscall.SYS_MKDIRAT, args: [6]kind{kFD, kPath, kInt}},
	{nr: syscall.SYS_MKNODAT, args: [6]kind{kFD, kPath, kFlags, kInt}},
	{nr: syscall.SYS_UNLINKAT, args: [6]kind{kFD, kPath, kFlags}},
	{nr: 276 /* renameat2 */, args: [6]kind{kFD, kPath, kFD, kPath, kInt}},
	{nr: syscall.SYS_LINKAT, args: [6]kind{kFD, kPath, kFD, kPath, kFlags}},
	{nr: syscall.SYS_SYMLINKAT, args: [6]kind{kPath, kFD, kPath}},
	{nr: syscall.SYS_READLINKAT, args: [6]kind{kFD, kPath, kBuf, kLen}},
	{nr: syscall.SYS_FACCESSAT, args: [6]kind{kFD, kPath, kInt}},
	{nr: syscall.SYS_FCHMODAT, args: [6]kind{kFD, kPath, kInt}},
	{nr: syscall.SYS_FCHOWNAT, args: [6]kind{kFD, kPath, kInt, kInt, kFlags}},
	{nr: syscall.SYS_UTIMENSAT, args: [6]kind{kFD, kPath, kBuf, kFlags}},
	{nr: syscall.SYS_FSTAT, args: [6]kind{kFD, kBuf}},
	{nr: 79 /* newfstatat */, args: [6]kind{kFD, kPath, kBuf, kFlags}},
	{nr: 291 /* statx */, args: [6]kind{kFD, kPath, kFlags, kInt, kBuf}},
	{nr: syscall.SYS_EPOLL_CREATE1, args: [6]kind{kFlags}},
	{nr: syscall.SYS_EPOLL_CTL, args: [6]kind{kFD, kInt, kFD, kBuf}},
	{nr: syscall.SYS_EPOLL_PWAIT, args: [6]kind{kFD, kBuf, kInt, kZero, kZero, kZero}, fix: func(a *[6]uintptr, r *rand.Rand) {
		a[3] = uintptr(r.IntN(2)) // 0 or 1 ms: never a long wait
	}},
	{nr: syscall.SYS_EVENTFD2, args: [6]kind{kInt, kFlags}, fix: nonblock(1)},
	{nr: syscall.SYS_FUTEX, args: [6]kind{kBuf, kInt, kInt, kTime, kBuf, kInt}, fix: func(a *[6]uintptr, r *rand.Rand) {
		a[1] = []uintptr{0, 1, 9, 10, 128, 129, 137, 138, 393, uintptr(r.Uint32())}[r.IntN(10)]
		a[3] = uintptr(unsafe.Pointer(&shortWait)) // a wait always ends
	}},
	{nr: syscall.SYS_CLOCK_GETTIME, args: [6]kind{kInt, kBuf}},
	{nr: syscall.SYS_CLOCK_GETRES, args: [6]kind{kInt, kBuf}},
	{nr: syscall.SYS_NANOSLEEP, args: [6]kind{kTime, kBuf}},
	{nr: 278 /* getrandom */, args: [6]kind{kBuf, kLen, kFlags}},
	{nr: syscall.SYS_UNAME, args: [6]kind{kBuf}},
	{nr: syscall.SYS_SYSINFO, args: [6]kind{kBuf}},
	{nr: syscall.SYS_PRLIMIT64, args: [6]kind{kZero, kInt, kZero, kBuf}},
	{nr: syscall.SYS_GETRLIMIT, args: [6]kind{kInt, kBuf}},
	{nr: syscall.SYS_GETRUSAGE, args: [6]kind{kInt, kBuf}},
	{nr: syscall.SYS_SCHED_GETAFFINITY, args: [6]kind{kZero, kLen, kBuf}},
	{nr: syscall.SYS_SCHED_SETAFFINITY, args: [6]kind{kZero, kLen, kBuf}},
	{nr: syscall.SYS_RT_SIGACTION, args: [6]kind{kInt, kZero, kBuf, kInt}},
	{nr: syscall.SYS_RT_SIGPROCMASK, args: [6]kind{kInt, kZero, kBuf, kInt}},
	{nr: syscall.SYS_SIGALTSTACK, args: [6]kind{kZero, kBuf}},
	{nr: syscall.SYS_MMAP, args: [6]kind{kScr, kScrLen, kInt, kFlags, kFD, kOff}, fix: fixMmap},
	{nr: syscall.SYS_MUNMAP, args: [6]kind{kScr, kScrLen}},
	{nr: syscall.SYS_MPROTECT, args: [6]kind{kScr, kScrLen, kInt}},
	{nr: syscall.SYS_MADVISE, args: [6]kind{kScr, kScrLen, kInt}},
	{nr: syscall.SYS_BRK, args: [6]kind{kBuf}},
	{nr: syscall.SYS_GETTID},
	{nr: syscall.SYS_SCHED_YIELD},
	{nr: 258 /* riscv_hwprobe */, args: [6]kind{kBuf, kLen, kLen, kBuf, kFlags}},
	{nr: 450 /* unknown */, args: [6]kind{kInt, kBuf}},
	// Sockets: every socket non-blocking and every send/receive
	// MSG_DONTWAIT, so no call waits for a peer that never comes.
	{nr: syscall.SYS_SOCKET, args: [6]kind{kInt, kInt, kInt}, fix: fixSocket},
	{nr: syscall.SYS_SOCKETPAIR, args: [6]kind{kInt, kInt, kInt, kBuf}, fix: fixSocket},
	{nr: syscall.SYS_BIND, args: [6]kind{kFD, kBuf, kLen}},
	{nr: syscall.SYS_LISTEN, args: [6]kind{kFD, kInt}},
	{nr: syscall.SYS_ACCEPT4, args: [6]kind{kFD, kBuf, kBuf, kFlags}, fix: nonblock(3)},
	{nr: syscall.SYS_CONNECT, args: [6]kind{kFD, kBuf, kLen}},
	{nr: syscall.SYS_GETSOCKNAME, args: [6]kind{kFD, kBuf, kBuf}},
	{nr: syscall.SYS_GETPEERNAME, args: [6]kind{kFD, kBuf, kBuf}},
	{nr: syscall.SYS_SENDTO, args: [6]kind{kFD, kBuf, kLen, kFlags, kBuf, kLen}, fix: dontWait(3)},
	{nr: syscall.SYS_RECVFROM, args: [6]kind{kFD, kBuf, kLen, kFlags, kBuf, kBuf}, fix: dontWait(3)},
	{nr: syscall.SYS_SENDMSG, args: [6]kind{kFD, kBuf, kFlags}, fix: dontWait(2)},
	{nr: syscall.SYS_RECVMSG, args: [6]kind{kFD, kBuf, kFlags}, fix: dontWait(2)},
	{nr: syscall.SYS_SETSOCKOPT, args: [6]kind{kFD, kInt, kInt, kBuf, kLen}},
	{nr: syscall.SYS_GETSOCKOPT, args: [6]kind{kFD, kInt, kInt, kBuf, kBuf}},
	{nr: syscall.SYS_SHUTDOWN, args: [6]kind{kFD, kInt}},
}

// fixSocket makes most sockets ones gometal has (AF_UNIX, AF_INET,
// AF_INET6; stream, datagram, seqpacket), always non-blocking.
func fixSocket(a *[6]uintptr, r *rand.Rand) {
	if r.IntN(4) != 0 {
		a[0] = []uintptr{1, 2, 10}[r.IntN(3)]
		a[1] = []uintptr{1, 2, 5}[r.IntN(3)] | a[1]&syscall.SOCK_CLOEXEC
		a[2] = 0
	}
	a[1] |= syscall.SOCK_NONBLOCK
}

func dontWait(i int) func(*[6]uintptr, *rand.Rand) {
	return func(a *[6]uintptr, _ *rand.Rand) { a[i] |= syscall.MSG_DONTWAIT }
}

// fixMmap keeps MAP_FIXED inside the scratch area (or at kernel
// addresses), so the Go heap is never replaced.
func fixMmap(a *[6]uintptr, r *rand.Rand) {
	a[3] &^= syscall.MAP_SHARED // private anonymous (or a bad fd's error)
	a[3] |= syscall.MAP_PRIVATE
	if a[3]&syscall.MAP_FIXED != 0 && r.IntN(8) == 0 {
		a[0] = kernelAddr
	}
	if a[3]&(syscall.MAP_FIXED|0x100000 /* MAP_FIXED_NOREPLACE */) == 0 {
		a[0] = 0
		a[1] &= 1<<20 - 1 // a non-fixed mapping is unmapped right after
	}
}

var shortWait = syscall.Timespec{Nsec: 1e6}
