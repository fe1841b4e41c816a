// Test program procworld: the rest of a Linux process's world (issue 23):
// mlock and friends, get/setpriority, ppoll, mremap, pidfds of itself,
// /dev/null writes that never read the buffer, /etc/passwd, /etc/group,
// /etc/hostname, HOME and USER, the time zone database, and os/exec
// failing cleanly with ENOSYS.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"syscall"
	"time"
	"unsafe"
)

const (
	sysPpoll           = 73
	sysMremap          = 216
	sysMlock           = 228
	sysMunlock         = 229
	sysMlockall        = 230
	sysMunlockall      = 231
	sysPidfdSendSignal = 424
	sysPidfdOpen       = 434
	mremapMaymove      = 1
	mremapFixed        = 2
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL procworld: "+format+"\n", args...)
	os.Exit(1)
}

func check(what string, err error) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func raw(nr uintptr, a ...uintptr) (uintptr, syscall.Errno) {
	var v [6]uintptr
	copy(v[:], a)
	r, _, e := syscall.Syscall6(nr, v[0], v[1], v[2], v[3], v[4], v[5])
	return r, e
}

func mlock() {
	buf := make([]byte, 3*4096)
	p := uintptr(unsafe.Pointer(&buf[0]))
	if _, e := raw(sysMlock, p, uintptr(len(buf))); e != 0 {
		fail("mlock: %v", e)
	}
	if _, e := raw(sysMunlock, p, uintptr(len(buf))); e != 0 {
		fail("munlock: %v", e)
	}
	if _, e := raw(sysMlock, 0x1000, 4096); e != syscall.ENOMEM {
		fail("mlock of an unmapped page: %v, want ENOMEM", e)
	}
	if _, e := raw(sysMlockall, 3); e != 0 {
		fail("mlockall(MCL_CURRENT|MCL_FUTURE): %v", e)
	}
	if _, e := raw(sysMlockall, 0); e != syscall.EINVAL {
		fail("mlockall(0): %v, want EINVAL", e)
	}
	if _, e := raw(sysMunlockall); e != 0 {
		fail("munlockall: %v", e)
	}
}

func priority() {
	check("setpriority", syscall.Setpriority(syscall.PRIO_PROCESS, 0, 5))
	// The raw call returns 20 - nice.
	if p, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0); err != nil || p != 15 {
		fail("getpriority after nice 5: %d, %v; want 15", p, err)
	}
	check("setpriority back", syscall.Setpriority(syscall.PRIO_PROCESS, 0, 0))
	if _, err := syscall.Getpriority(syscall.PRIO_PROCESS, 99999); err != syscall.ESRCH {
		fail("getpriority of another process: %v, want ESRCH", err)
	}
}

type pollfd struct {
	fd             int32
	events, revent int16
}

func ppoll() {
	var p [2]int
	check("pipe", syscall.Pipe(p[:]))
	fds := []pollfd{{fd: int32(p[0]), events: 1}, {fd: 9999, events: 1}, {fd: -1, events: 1}}
	ts := syscall.Timespec{}
	n, e := raw(sysPpoll, uintptr(unsafe.Pointer(&fds[0])), 3, uintptr(unsafe.Pointer(&ts)))
	if e != 0 || n != 1 || fds[0].revent != 0 || fds[1].revent != 0x20 || fds[2].revent != 0 {
		fail("ppoll of an empty pipe and a bad fd: %d %v %+v; want 1 (POLLNVAL)", n, e, fds)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		syscall.Write(p[1], []byte("x"))
	}()
	fds = fds[:1]
	ts = syscall.Timespec{Sec: 5}
	start := time.Now()
	n, e = raw(sysPpoll, uintptr(unsafe.Pointer(&fds[0])), 1, uintptr(unsafe.Pointer(&ts)))
	if e != 0 || n != 1 || fds[0].revent&1 == 0 {
		fail("ppoll for a write in 50ms: %d %v %+v", n, e, fds)
	}
	if d := time.Since(start); d > 3*time.Second {
		fail("ppoll woke after %v", d)
	}
	syscall.Close(p[0])
	syscall.Close(p[1])
}

func mremap() {
	const page = 4096
	mem, err := syscall.Mmap(-1, 0, 4*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	check("mmap", err)
	for i := range mem {
		mem[i] = byte(i / page * 7)
	}
	old := uintptr(unsafe.Pointer(&mem[0]))
	if _, e := raw(sysMremap, old, 4*page, 1<<30, 0); e != syscall.ENOMEM && e != 0 {
		fail("mremap grow in place of 1 GiB: %v", e)
	}
	addr, e := raw(sysMremap, old, 4*page, 64*page, mremapMaymove)
	if e != 0 {
		fail("mremap MAYMOVE: %v", e)
	}
	grown := bytesAt(addr, 64*page)
	for i := 0; i < 4*page; i++ {
		if grown[i] != byte(i/page*7) {
			fail("mremap lost the contents at byte %d", i)
		}
	}
	for i := 4 * page; i < 64*page; i += page {
		if grown[i] != 0 {
			fail("mremap's new pages are not zero")
		}
	}
	grown[63*page] = 9
	// Shrink in place, then move to a fixed place.
	if a, e := raw(sysMremap, addr, 64*page, 2*page, 0); e != 0 || a != addr {
		fail("mremap shrink: %#x %v", a, e)
	}
	dst, err := syscall.Mmap(-1, 0, 8*page, syscall.PROT_READ, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	check("mmap destination", err)
	to := uintptr(unsafe.Pointer(&dst[0]))
	if a, e := raw(sysMremap, addr, 2*page, 2*page, mremapMaymove|mremapFixed, to); e != 0 || a != to {
		fail("mremap FIXED: %#x %v", a, e)
	}
	moved := bytesAt(to, 2*page)
	if moved[page] != 7 || moved[0] != 0 {
		fail("mremap FIXED moved the wrong bytes")
	}
	moved[0] = 1 // writable, as the old mapping was
	if _, e := raw(sysMremap, addr, page, page, 0); e != syscall.EFAULT {
		fail("mremap of the old, now unmapped range: %v, want EFAULT", e)
	}
}

// bytesAt is the memory at addr (from mremap) as a slice.
func bytesAt(addr uintptr, n int) []byte {
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	return unsafe.Slice((*byte)(p), n)
}

func pidfd() {
	fd, e := raw(sysPidfdOpen, uintptr(os.Getpid()), 0)
	if e != 0 {
		fail("pidfd_open(getpid()): %v", e)
	}
	if _, e := raw(sysPidfdOpen, 12345, 0); e != syscall.ESRCH {
		fail("pidfd_open(12345): %v, want ESRCH", e)
	}
	if _, e := raw(sysPidfdSendSignal, fd, 0, 0, 0); e != 0 {
		fail("pidfd_send_signal(0): %v", e)
	}
	usr := make(chan os.Signal, 1)
	signal.Notify(usr, syscall.SIGUSR1)
	if _, e := raw(sysPidfdSendSignal, fd, uintptr(syscall.SIGUSR1), 0, 0); e != 0 {
		fail("pidfd_send_signal(SIGUSR1): %v", e)
	}
	select {
	case <-usr:
	case <-time.After(5 * time.Second):
		fail("no SIGUSR1 from pidfd_send_signal")
	}
	if _, e := raw(sysPidfdSendSignal, 1, 0, 0, 0); e != syscall.EINVAL {
		fail("pidfd_send_signal on stdout: %v, want EINVAL", e)
	}
	syscall.Close(int(fd))
}

func devnull() {
	f, err := os.OpenFile("/dev/null", os.O_WRONLY, 0)
	check("open /dev/null", err)
	// Linux never reads the buffer: a huge length at an unmapped address,
	// inside user space (64 GiB: below the top of the smallest user half,
	// gometal's and Sv39 Linux's 256 GiB; useraccess tries past it).
	n, _, e := syscall.Syscall(syscall.SYS_WRITE, f.Fd(), 0x1000, 1<<36)
	if e != 0 || n != 0x7ffff000 {
		fail("write(/dev/null, unmapped, 64 GiB) = %#x, %v; want 0x7ffff000", n, e)
	}
	f.Close()
}

func files() {
	for name, want := range map[string]string{
		"/etc/passwd": "root:x:0:0:root:/root:", "/etc/group": "root:x:0:", "/etc/hostname": "gometal\n",
	} {
		data, err := os.ReadFile(name)
		if err != nil || !bytes.Contains(data, []byte(want)) {
			fail("%s: %q, %v; want %q in it", name, data, err, want)
		}
	}
	u, err := user.Current()
	if err != nil || u.Username != "root" || u.HomeDir != "/root" || u.Uid != "0" {
		fail("user.Current() = %+v, %v", u, err)
	}
	if g, err := user.LookupGroupId("0"); err != nil || g.Name != "root" {
		fail("LookupGroupId(0) = %+v, %v", g, err)
	}
	if os.Getenv("HOME") != "/root" || os.Getenv("USER") != "root" {
		fail("HOME=%q USER=%q; want /root and root", os.Getenv("HOME"), os.Getenv("USER"))
	}
	if st, err := os.Stat("/root"); err != nil || !st.IsDir() {
		fail("/root: %v", err)
	}
	if h, _ := os.Hostname(); h != "gometal" {
		fail("hostname %q", h)
	}
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		fail("LoadLocation(Europe/Berlin): %v", err)
	}
	if _, off := time.Date(2026, 7, 1, 12, 0, 0, 0, loc).Zone(); off != 2*3600 {
		fail("Europe/Berlin in July: offset %d, want 7200", off)
	}
}

func forkexec() {
	err := exec.Command("/init", "child").Run()
	if !errors.Is(err, syscall.ENOSYS) {
		fail("os/exec: %v, want ENOSYS", err)
	}
	_, err = syscall.ForkExec("/init", []string{"/init"}, nil)
	if err != syscall.ENOSYS {
		fail("ForkExec: %v, want ENOSYS", err)
	}
	fmt.Println("os/exec:", err)
}

func main() {
	mlock()
	priority()
	ppoll()
	mremap()
	pidfd()
	devnull()
	files()
	forkexec()
	fmt.Println("PASS procworld")
}
