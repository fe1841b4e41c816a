// Command limits runs one of the probes that used to break the kernel by
// exhausting its heap or racing its directory tree (the first argument
// picks it). Each must end with a clean error from the kernel's limits and
// a program that still works; "threads" and "threadsoom" must end the
// program with a kernel line instead of a hang.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL limits: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: limits pipes|watches|bigdir|rename|threads|threadsoom|nofile|dgrams")
	}
	probes := map[string]func(){
		"pipes": pipes, "watches": watches, "bigdir": bigdir, "rename": rename,
		"threads": threads, "threadsoom": threadsOOM, "nofile": nofile, "dgrams": dgrams,
	}
	probe, ok := probes[os.Args[1]]
	if !ok {
		fail("unknown probe %q", os.Args[1])
	}
	probe()
	stillWorks()
	fmt.Println("PASS limits-" + os.Args[1])
}

// stillWorks does what the old kernel panicked on after a limit: a 16 KiB
// read, a pipe round trip, a file, goroutines.
func stillWorks() {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		fail("pipe after the probe: %v", err)
	}
	msg := []byte("still working")
	if _, err := syscall.Write(p[1], msg); err != nil {
		fail("pipe write after the probe: %v", err)
	}
	buf := make([]byte, 16<<10)
	n, err := syscall.Read(p[0], buf)
	if err != nil || string(buf[:n]) != string(msg) {
		fail("pipe read after the probe: %q, %v", buf[:n], err)
	}
	syscall.Close(p[0])
	syscall.Close(p[1])
	if err := os.WriteFile("/tmp/after", msg, 0o644); err != nil {
		fail("file after the probe: %v", err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); time.Sleep(time.Millisecond) }()
	}
	wg.Wait()
	fmt.Println("still working after the probe")
}

// pipes creates pipes until the descriptor limit, fills each as far as the
// kernel lets it, then drains them all.
func pipes() {
	var ends [][2]int
	var err error
	for {
		var p [2]int
		if err = syscall.Pipe2(p[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
			break
		}
		ends = append(ends, p)
	}
	if !errors.Is(err, syscall.EMFILE) {
		fail("pipe2 after %d pipes: %v, want EMFILE", len(ends), err)
	}
	chunk := make([]byte, 64<<10)
	total := 0
	for _, p := range ends {
		n, err := syscall.Write(p[1], chunk)
		if err != nil && err != syscall.EAGAIN && err != syscall.ENOMEM {
			fail("filling a pipe: %v", err)
		}
		total += max(n, 0)
	}
	drained := 0
	buf := make([]byte, 64<<10)
	for _, p := range ends {
		for {
			n, err := syscall.Read(p[0], buf)
			if err != nil || n == 0 {
				break
			}
			drained += n
		}
		syscall.Close(p[0])
		syscall.Close(p[1])
	}
	if drained != total {
		fail("pipes: wrote %d bytes, read back %d", total, drained)
	}
	fmt.Printf("pipes: EMFILE after %d pipes; %d KiB buffered and read back\n", len(ends), total>>10)
}

// watches adds every eventfd of a set to every epoll instance of a set
// until the kernel's watch limit.
func watches() {
	const n = 480
	var efds, eps []int
	for i := 0; i < n; i++ {
		e, err := eventfd()
		if err != nil {
			fail("eventfd %d: %v", i, err)
		}
		ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
		if err != nil {
			fail("epoll_create1 %d: %v", i, err)
		}
		efds, eps = append(efds, e), append(eps, ep)
	}
	added := 0
	var err error
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN}
add:
	for _, ep := range eps {
		for _, e := range efds {
			if err = syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, e, &ev); err != nil {
				break add
			}
			added++
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		fail("epoll_ctl after %d watches: %v, want ENOSPC", added, err)
	}
	for _, fd := range append(efds, eps...) {
		syscall.Close(fd)
	}
	// The watches died with their instances: the same number fits again.
	ep, _ := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	e, _ := eventfd()
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, e, &ev); err != nil {
		fail("epoll_ctl after closing everything: %v", err)
	}
	syscall.Close(ep)
	syscall.Close(e)
	fmt.Printf("watches: ENOSPC after %d watches\n", added)
}

func eventfd() (int, error) {
	fd, _, e := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, syscall.O_CLOEXEC, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// bigdir fills one directory until the kernel says ENOSPC (or 100,000
// files), lists it, and removes it.
func bigdir() {
	dir := "/tmp/big"
	if err := os.Mkdir(dir, 0o755); err != nil {
		fail("mkdir: %v", err)
	}
	created := 0
	for ; created < 100000; created++ {
		fd, err := syscall.Open(fmt.Sprintf("%s/file-%06d", dir, created), syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o644)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			fail("creating file %d: %v", created, err)
		}
		syscall.Close(fd)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != created {
		fail("listing %d files: %d entries, %v", created, len(entries), err)
	}
	if err := os.RemoveAll(dir); err != nil {
		fail("removing: %v", err)
	}
	fmt.Printf("bigdir: %d files listed and removed\n", created)
}

// rename races A -> B/A against B -> A/B; whatever order they land in, one
// directory must stay in /tmp/r with the other inside it.
func rename() {
	root := "/tmp/r"
	for _, d := range []string{root + "/A", root + "/B"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			fail("mkdir: %v", err)
		}
	}
	var wg sync.WaitGroup
	deadline := time.Now().Add(2 * time.Second)
	moves := [2]int{}
	for i, names := range [][2]string{{"A", "B"}, {"B", "A"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			x, y := names[0], names[1]
			for time.Now().Before(deadline) {
				// x at the top -> into y; then back out again.
				if os.Rename(root+"/"+x, root+"/"+y+"/"+x) == nil {
					moves[i]++
				}
				os.Rename(root+"/"+y+"/"+x, root+"/"+x)
			}
		}()
	}
	wg.Wait()
	top := 0
	for _, d := range []string{"A", "B"} {
		if _, err := os.Stat(root + "/" + d); err == nil {
			top++
		}
	}
	found := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if found++; found > 10 {
			return fmt.Errorf("more than 10 directories under %s: a cycle?", root)
		}
		return nil
	})
	if err != nil || found != 3 || top == 0 {
		fail("rename race left %d of A, B at the top and %d directories in the tree (%v)", top, found, err)
	}
	fmt.Printf("rename: %d + %d moves, the tree is whole\n", moves[0], moves[1])
}

// threads starts locked goroutines that never return until the kernel's
// thread limit ends the program.
func threads() {
	block := make(chan struct{})
	for i := 0; ; i++ {
		go func() {
			runtime.LockOSThread()
			<-block
		}()
		if i%64 == 0 {
			fmt.Printf("threads: %d started\n", i)
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// threadsOOM fills most of memory first, then starts threads: their kernel
// stacks are what runs out.
func threadsOOM() {
	var hold [][]byte
	for i := 0; i < 40; i++ { // 40 MiB of the VM's 64
		b := make([]byte, 1<<20)
		for j := range b {
			b[j] = byte(j)
		}
		hold = append(hold, b)
	}
	fmt.Printf("threadsoom: holding %d MiB\n", len(hold))
	threads()
}

// nofile checks RLIMIT_NOFILE as Linux keeps it: Go raised the soft limit
// to one below the hard one (4096) at start (syscall/rlimit.go); descriptors run out there with EMFILE;
// raising the hard limit (root may) gives more; bad limits are refused.
func nofile() {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fail("getrlimit: %v", err)
	}
	if lim.Cur != 4095 || lim.Max != 4096 {
		fail("RLIMIT_NOFILE at start %d/%d, want 4095/4096 (Go raises soft to hard-1)", lim.Cur, lim.Max)
	}
	fds := openUntilFull()
	if len(fds) < 4000 || len(fds) > 4095 {
		fail("%d descriptors opened under a limit of 4095", len(fds))
	}
	if err := syscall.Dup3(fds[0], 5000, 0); err != syscall.EBADF {
		fail("dup3 to 5000 under a limit of 4095: %v, want EBADF", err)
	}
	closeAll(fds)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 5, Max: 4}); err != syscall.EINVAL {
		fail("setrlimit soft > hard: %v, want EINVAL", err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 1, Max: 1 << 21}); err != syscall.EPERM {
		fail("setrlimit above nr_open: %v, want EPERM", err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 12000, Max: 12000}); err != nil {
		fail("setrlimit 12000: %v", err)
	}
	fds = openUntilFull()
	if len(fds) < 11900 || len(fds) > 12000 {
		fail("%d descriptors opened under a limit of 12000", len(fds))
	}
	fmt.Printf("nofile: EMFILE after %d descriptors at 12000\n", len(fds))
	closeAll(fds)
}

// openUntilFull opens /dev/null until EMFILE (any other error fails).
func openUntilFull() []int {
	var fds []int
	for {
		fd, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EMFILE {
			return fds
		}
		if err != nil {
			fail("open after %d descriptors: %v", len(fds), err)
		}
		fds = append(fds, fd)
	}
}

func closeAll(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

// dgrams fills the receive queues of 1000 UDP sockets that nobody reads:
// each queue's own cap allows 3 datagrams of 64 KiB, together ~200 MB, far
// more than the kernel heap. The kernel must drop datagrams past its heap
// budget (as a full queue drops them), not panic on an allocation.
func dgrams() {
	const socks = 1000
	payload := make([]byte, 65507)
	sender, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	if err != nil {
		fail("socket: %v", err)
	}
	var fds []int
	for i := 0; i < socks; i++ {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
		if err != nil {
			fail("socket %d: %v", i, err)
		}
		if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			fail("bind %d: %v", i, err)
		}
		sa, err := syscall.Getsockname(fd)
		if err != nil {
			fail("getsockname %d: %v", i, err)
		}
		for j := 0; j < 3; j++ {
			if err := syscall.Sendto(sender, payload, 0, sa); err != nil {
				fail("sendto socket %d: %v", i, err)
			}
		}
		fds = append(fds, fd)
	}
	// The first socket got its datagrams before any budget ran out.
	buf := make([]byte, len(payload))
	if n, _, err := syscall.Recvfrom(fds[0], buf, syscall.MSG_DONTWAIT); err != nil || n != len(payload) {
		fail("recvfrom the first socket: %d, %v", n, err)
	}
	closeAll(append(fds, sender))
	fmt.Printf("dgrams: %d sockets filled\n", socks)
}
