// Test program bigalloc: allocates and drops about 1 GiB in 4 MiB chunks in a
// 256 MiB VM, so memory must really be freed and reused; then returns memory
// to the "OS" (madvise MADV_DONTNEED) and checks that it reads back correctly.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
)

const (
	chunkSize = 4 << 20
	chunks    = 256 // 1 GiB in total
	live      = 3   // at most this many chunks alive at once
	page      = 4096
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL bigalloc: "+format+"\n", a...)
	os.Exit(1)
}

func pattern(chunk, pg int) byte { return byte(chunk*31+pg*7) | 1 }

func fill(b []byte, chunk int) {
	for pg := 0; pg*page < len(b); pg++ {
		b[pg*page] = pattern(chunk, pg)
	}
}

func check(b []byte, chunk int) {
	for pg := 0; pg*page < len(b); pg++ {
		if got, want := b[pg*page], pattern(chunk, pg); got != want {
			fail("chunk %d page %d: got %#x, want %#x", chunk, pg, got, want)
		}
		if b[pg*page+page/2] != 0 {
			fail("chunk %d page %d: untouched byte is %#x, want 0", chunk, pg, b[pg*page+page/2])
		}
	}
}

func checkZero(b []byte, what string) {
	for i := 0; i < len(b); i += 512 {
		if b[i] != 0 {
			fail("%s: byte %d is %#x, want 0 (fresh memory must be zero)", what, i, b[i])
		}
	}
}

func main() {
	var ring [live][]byte
	var ids [live]int
	for i := 0; i < chunks; i++ {
		slot := i % live
		if ring[slot] != nil {
			check(ring[slot], ids[slot])
		}
		b := make([]byte, chunkSize)
		fill(b, i)
		ring[slot], ids[slot] = b, i
		if i%32 == 31 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Printf("%4d MiB allocated, heap %d MiB, sys %d MiB\n", (i+1)*chunkSize>>20, ms.HeapAlloc>>20, ms.Sys>>20)
		}
	}
	for slot := range ring {
		check(ring[slot], ids[slot])
		ring[slot] = nil
	}
	fmt.Println("1 GiB allocated and dropped, live chunks intact")

	// Return freed memory to the kernel, then reuse it.
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("after FreeOSMemory: HeapReleased %d MiB\n", ms.HeapReleased>>20)
	for i := 0; i < 4; i++ {
		b := make([]byte, chunkSize)
		checkZero(b, fmt.Sprintf("reused chunk %d", i))
		fill(b, 1000+i)
		check(b, 1000+i)
		ring[i%live], ids[i%live] = b, 1000+i
	}
	debug.FreeOSMemory()
	for slot := range ring {
		check(ring[slot], ids[slot])
	}
	fmt.Println("memory reused after FreeOSMemory reads correctly")
	fmt.Println("PASS bigalloc")
}
