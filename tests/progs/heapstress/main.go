// Test program heapstress: the kernel paths that could put a wrong page
// under a Go heap address (issue 23's heap corruption hunt), all at once
// on every CPU: mappers mmap, mremap (moving and growing), madvise and
// munmap anonymous and file memory, and map a /tmp file shared over and
// over, while heap workers build and check pointer-rich structures and
// debug.FreeOSMemory keeps handing the heap's pages back to the kernel
// (madvise DONTNEED) and faulting them in again. Any page from the wrong
// place shows as a checksum mismatch or as the Go runtime's "found bad
// pointer in Go heap".
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const page = 4096

func fail(format string, args ...any) {
	fmt.Printf("FAIL heapstress: "+format+"\n", args...)
	os.Exit(1)
}

func bytesAt(addr uintptr, n int) []byte {
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	return unsafe.Slice((*byte)(p), n)
}

// mapper churns the address space next to the heap.
func mapper(id int, stop *atomic.Bool, rounds *atomic.Int64) {
	path := fmt.Sprintf("/tmp/heapstress-%d", id)
	f, err := os.Create(path)
	if err != nil {
		fail("create: %v", err)
	}
	defer f.Close()
	for n := 0; !stop.Load(); n++ {
		// Raw calls: syscall.Munmap only takes what syscall.Mmap returned.
		base, _, e := syscall.Syscall6(syscall.SYS_MMAP, 0, 16*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE, ^uintptr(0), 0)
		if e != 0 {
			fail("mmap: %v", e)
		}
		mem := bytesAt(base, 16*page)
		tag := byte(id*31 + n)
		for i := 0; i < len(mem); i += page {
			mem[i], mem[i+page-1] = tag, tag^0xff
		}
		addr, _, e := syscall.Syscall6(216, uintptr(unsafe.Pointer(&mem[0])), 16*page, 64*page, 1, 0, 0) // mremap MAYMOVE
		if e != 0 {
			fail("mremap: %v", e)
		}
		grown := bytesAt(addr, 64*page)
		for i := 0; i < 16*page; i += page {
			if grown[i] != tag || grown[i+page-1] != tag^0xff {
				fail("mremap moved a wrong page at offset %d", i)
			}
		}
		for i := 16 * page; i < 64*page; i += page {
			if grown[i] != 0 {
				fail("mremap's new page at %d is not zero", i)
			}
			grown[i] = tag
		}
		syscall.Madvise(grown[:32*page], syscall.MADV_DONTNEED)
		if grown[0] != 0 || grown[40*page] != tag {
			fail("madvise DONTNEED: %d %d", grown[0], grown[40*page])
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MUNMAP, addr, 64*page, 0); e != 0 {
			fail("munmap: %v", e)
		}
		// A shared file mapping, grown and shrunk under it.
		if err := f.Truncate(8 * page); err != nil {
			fail("truncate: %v", err)
		}
		fm, err := syscall.Mmap(int(f.Fd()), 0, 8*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
		if err != nil {
			fail("mmap file: %v", err)
		}
		fm[5*page] = tag
		b := make([]byte, 1)
		if _, err := f.ReadAt(b, 5*page); err != nil || b[0] != tag {
			fail("file mapping and read disagree: %v %d %d", err, b[0], tag)
		}
		syscall.Munmap(fm)
		f.Truncate(0)
		rounds.Add(1)
	}
	os.Remove(path)
}

type node struct {
	next  *node
	items map[int]*[4]int
	sum   int
}

// worker builds pointer-rich lists and checks them after GC churn.
func worker(seed int, stop *atomic.Bool, rounds *atomic.Int64) {
	for n := seed; !stop.Load(); n++ {
		var head *node
		want := 0
		for i := 0; i < 200; i++ {
			nd := &node{next: head, items: map[int]*[4]int{}}
			for j := 0; j < 8; j++ {
				v := &[4]int{n, i, j, n ^ i ^ j}
				nd.items[j] = v
				nd.sum += v[3]
			}
			want += nd.sum
			head = nd
		}
		runtime.Gosched()
		got := 0
		for nd := head; nd != nil; nd = nd.next {
			s := 0
			for _, v := range nd.items {
				if v[3] != v[0]^v[1]^v[2] {
					fail("heap object corrupted: %v", *v)
				}
				s += v[3]
			}
			if s != nd.sum {
				fail("node sum %d, want %d", s, nd.sum)
			}
			got += s
		}
		if got != want {
			fail("list sum %d, want %d", got, want)
		}
		rounds.Add(1)
	}
}

func main() {
	secs := 4
	if len(os.Args) > 1 {
		secs, _ = strconv.Atoi(os.Args[1])
	}
	var stop atomic.Bool
	var maps, lists, frees atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); mapper(i, &stop, &maps) }()
	}
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); worker(i*1000, &stop, &lists) }()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			debug.FreeOSMemory() // GC, then madvise the free heap pages away
			frees.Add(1)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	time.Sleep(time.Duration(secs) * time.Second)
	stop.Store(true)
	wg.Wait()
	if maps.Load() == 0 || lists.Load() == 0 || frees.Load() == 0 {
		fail("no progress: %d mapping rounds, %d lists, %d FreeOSMemory", maps.Load(), lists.Load(), frees.Load())
	}
	fmt.Printf("heapstress: %d mapping rounds, %d lists checked, %d FreeOSMemory\n", maps.Load(), lists.Load(), frees.Load())
	fmt.Println("PASS heapstress")
}
