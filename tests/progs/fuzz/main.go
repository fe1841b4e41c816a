// Command fuzz is a system-call storm: several threads call the kernel
// with adversarial arguments (bad and half-mapped pointers, kernel
// addresses, huge lengths, random flags, closed and foreign descriptors,
// racing renames and closes), then the program checks that the kernel
// still works. Arguments: seed (default 1), total calls (default 20000),
// threads (default 8). The calls are chosen so that they cannot block
// forever or break the Go runtime itself (calls.go's fixes); any hang,
// crash or kernel panic is then the kernel's.
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const (
	scratchSize = 64 << 10
	guardSize   = 64 << 10 // PROT_NONE after the scratch area, never remapped
	pageSize    = 4096
	// Scratch areas sit from 4 GiB up, 1 MiB apart: below gometal's mmap
	// range (8 GiB up) and far above the program image.
	scratchBase   = 1 << 32
	scratchStride = 1 << 20
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL fuzz: "+format+"\n", a...)
	os.Exit(1)
}

func argInt(i, def int) int {
	if len(os.Args) <= i {
		return def
	}
	n, err := strconv.Atoi(os.Args[i])
	if err != nil {
		fail("argument %d: %v", i, err)
	}
	return n
}

// firstFD is the lowest descriptor the fuzzer may use: everything below
// is the runtime's (its netpoller) or the console.
var firstFD int

func main() {
	seed, total, threads := argInt(1, 1), argInt(2, 20000), argInt(3, 8)
	// Start the netpoller first, so its descriptors are below firstFD.
	r, w, err := os.Pipe()
	if err != nil {
		fail("pipe: %v", err)
	}
	r.SetReadDeadline(time.Now().Add(time.Hour))
	if firstFD, err = syscall.Open("/dev/null", syscall.O_RDONLY, 0); err != nil {
		fail("open: %v", err)
	}
	var calls, errs atomic.Int64
	go watchdog(&calls)
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := newFuzzer(uint64(seed), uint64(t))
			for i := 0; i < total/threads; i++ {
				if f.step() {
					errs.Add(1)
				}
				calls.Add(1)
				if i%1000 == 999 {
					f.reset()
				}
			}
		}()
	}
	wg.Wait()
	cleanup()
	stillWorks(r, w)
	fmt.Printf("fuzz: seed %d: %d calls on %d threads (%d failed with an errno); the kernel still works\n",
		seed, calls.Load(), threads, errs.Load())
	fmt.Println("PASS fuzz")
}

// fuzzer is one thread's state: its random source, its scratch area (64 KiB
// read-write, then a 64 KiB PROT_NONE guard) and its path strings.
type fuzzer struct {
	r       *rand.Rand
	scratch uintptr
	paths   []uintptr
	names   [][]byte // keeps the path strings alive
	// The call being made, for the watchdog.
	inFlight atomic.Pointer[inFlight]
}

type inFlight struct {
	nr   uintptr
	args [6]uintptr
}

var fuzzers sync.Map // *fuzzer -> true

// watchdog ends the program with the calls in flight when no call has
// finished for 10 s: a call that never returns is a kernel bug (the storm
// only makes calls that cannot block for long).
func watchdog(calls *atomic.Int64) {
	last := int64(-1)
	for {
		time.Sleep(10 * time.Second)
		n := calls.Load()
		if n != last {
			last = n
			continue
		}
		fuzzers.Range(func(k, _ any) bool {
			if c := k.(*fuzzer).inFlight.Load(); c != nil {
				fmt.Printf("fuzz: stuck in syscall %d%#x\n", c.nr, c.args)
			}
			return true
		})
		fail("no call finished for 10 s after %d calls", n)
	}
}

var pathNames = []string{"/tmp/fuzz/a", "/tmp/fuzz/a/b", "/tmp/fuzz/d", "/tmp/fuzz/d/../a", "/tmp/fuzz/l",
	"/tmp/fuzz/a/b/c/", "/tmp/fuzz/p", "", ".", "..", "fuzz-rel", "/tmp/fuzz/" + longName(300),
	"/tmp/fuzz/" + longName(5000), "/tmp/fuzz/d/x", "/tmp/fuzz/l/x", "/tmp/fuzz"}

func longName(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}

func newFuzzer(seed, stream uint64) *fuzzer {
	f := &fuzzer{r: rand.New(rand.NewPCG(seed, stream))}
	// At a fixed address below where the kernel places mappings: a hole
	// the storm makes in its scratch area must never be filled by the Go
	// runtime's own mmaps (which the storm would then clobber).
	f.scratch = scratchBase + uintptr(stream)*scratchStride
	const noreplace = syscall.MAP_PRIVATE | syscall.MAP_ANON | 0x100000 /* MAP_FIXED_NOREPLACE */
	_, _, e := syscall.Syscall6(syscall.SYS_MMAP, f.scratch, scratchSize+guardSize, syscall.PROT_READ|syscall.PROT_WRITE, noreplace, ^uintptr(0), 0)
	if e != 0 {
		fail("mmap of the scratch area: %v", e)
	}
	for _, p := range pathNames {
		b := append([]byte(p), 0)
		f.names = append(f.names, b)
		f.paths = append(f.paths, uintptr(unsafe.Pointer(&b[0])))
	}
	f.reset()
	fuzzers.Store(f, true)
	os.MkdirAll("/tmp/fuzz/a/b", 0o777)
	return f
}

// reset maps the scratch area afresh (the fuzz unmaps and protects it).
func (f *fuzzer) reset() {
	const fixed = syscall.MAP_PRIVATE | syscall.MAP_ANON | syscall.MAP_FIXED
	_, _, e := syscall.Syscall6(syscall.SYS_MMAP, f.scratch, scratchSize, syscall.PROT_READ|syscall.PROT_WRITE, fixed, ^uintptr(0), 0)
	if e != 0 {
		fail("remapping the scratch area: %v", e)
	}
	syscall.Syscall(syscall.SYS_MPROTECT, f.scratch+scratchSize, guardSize, syscall.PROT_NONE)
}

// step makes one random call; true if it failed with an errno.
func (f *fuzzer) step() bool {
	c := &calls[f.r.IntN(len(calls))]
	var a [6]uintptr
	for i, k := range c.args {
		a[i] = f.value(k)
	}
	if c.fix != nil {
		c.fix(&a, f.r)
	}
	if c.args[0] == kScr {
		f.clampToScratch(&a, c.nr == syscall.SYS_MMAP)
	}
	f.inFlight.Store(&inFlight{nr: c.nr, args: a})
	ret, _, e := syscall.Syscall6(c.nr, a[0], a[1], a[2], a[3], a[4], a[5])
	f.inFlight.Store(nil)
	if c.nr == syscall.SYS_MMAP && e == 0 && (ret < f.scratch || ret >= f.scratch+scratchSize) && ret != kernelAddr {
		syscall.Syscall(syscall.SYS_MUNMAP, ret, a[1], 0) // a new mapping elsewhere: give it back
	}
	return e != 0
}

// clampToScratch keeps an (address, length) pair of the mmap family inside
// the scratch area: the storm must not unmap, protect or discard the Go
// heap, nor open the guard after the scratch area (reads with huge lengths
// must stop there, as the Go heap may come next). mmap keeps a length of
// 2^62 (the kernel must refuse it by itself).
func (f *fuzzer) clampToScratch(a *[6]uintptr, isMmap bool) {
	end := f.scratch + scratchSize
	switch {
	case isMmap && a[1] == 1<<62:
	case a[0] >= end:
		a[1] = 0
	case a[1] > end-a[0]:
		a[1] = end - a[0]
	}
}

func (f *fuzzer) value(k kind) uintptr {
	r := f.r
	pick := func(vs ...uintptr) uintptr { return vs[r.IntN(len(vs))] }
	switch k {
	case kInt:
		return pick(0, 1, 2, 3, 4, 7, 8, 9, 10, 64, 128, 1030, 1<<31, 1<<32, ^uintptr(0), uintptr(r.IntN(300)), uintptr(r.Uint64()))
	case kFD:
		return pick(uintptr(firstFD+r.IntN(48)), uintptr(firstFD+r.IntN(8)), ^uintptr(0), ^uintptr(99) /* AT_FDCWD */, 9999, 1<<31)
	case kBuf:
		s := f.scratch
		return pick(s+uintptr(r.IntN(scratchSize)), s, s+scratchSize-uintptr(r.IntN(16)), s+scratchSize, s+1,
			kernelAddr, 0, 0x1000, 1<<38|uintptr(r.Uint64()))
	case kLen:
		return pick(0, 1, 3, 8, 16, 64, 4096, 4097, 65536, 1<<20, 1<<30, 1<<62, ^uintptr(0), uintptr(r.IntN(100000)))
	case kOff:
		return pick(0, 1, 4096, 1<<20, 1<<40, 1<<62, ^uintptr(0), uintptr(r.IntN(1<<16)))
	case kPath:
		return pick(f.paths[r.IntN(len(f.paths))], f.paths[r.IntN(len(f.paths))], f.paths[r.IntN(len(f.paths))],
			kernelAddr, 0, f.scratch+scratchSize, f.scratch+scratchSize-3)
	case kFlags:
		return uintptr(r.Uint32()) & pick(0xff, 0xfff, 0xfffff, 0xffffffff)
	case kTime:
		return pick(uintptr(unsafe.Pointer(&shortWait)), kernelAddr, 0x10, 0x1000) // the scratch may hold a long time
	case kScr:
		off := uintptr(r.IntN(scratchSize/pageSize+1)) * pageSize
		return pick(f.scratch+off, f.scratch+off, f.scratch+off+1)
	case kScrLen:
		return pick(0, 1, pageSize, 2*pageSize, uintptr(r.IntN(4))*pageSize, 1<<62)
	}
	return 0
}

// cleanup closes every descriptor the fuzz may have made and removes its
// files.
func cleanup() {
	for fd := firstFD; fd < 1024; fd++ {
		syscall.Close(fd)
	}
	syscall.Chdir("/")
	if err := os.RemoveAll("/tmp/fuzz"); err != nil {
		filepath.WalkDir("/tmp/fuzz", func(p string, d os.DirEntry, err error) error {
			fmt.Printf("fuzz: left: %q %v %v\n", p, d, err)
			return nil
		})
		fail("removing /tmp/fuzz: %v", err)
	}
}

// stillWorks checks files, pipes through the netpoller with a deadline,
// timers and goroutines on every hart.
func stillWorks(r, w *os.File) {
	msg := []byte("after the storm")
	if err := os.WriteFile("/tmp/after", msg, 0o644); err != nil {
		fail("write file: %v", err)
	}
	if b, err := os.ReadFile("/tmp/after"); err != nil || string(b) != string(msg) {
		fail("read file: %q, %v", b, err)
	}
	go func() { time.Sleep(10 * time.Millisecond); w.Write(msg) }()
	r.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 64)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != string(msg) {
		fail("pipe read through the netpoller: %q, %v", buf[:n], err)
	}
	var wg sync.WaitGroup
	var sum atomic.Int64
	for i := 0; i < 4*runtime.GOMAXPROCS(0); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Millisecond)
			sum.Add(int64(i))
		}()
	}
	wg.Wait()
	if n := int64(4 * runtime.GOMAXPROCS(0)); sum.Load() != n*(n-1)/2 {
		fail("goroutines: sum %d", sum.Load())
	}
}
