package main

// cached: /data is mounted ro,cache=loose in a small machine
// (tests/mountcache_test.go). The host put /data/cN.bin there, more bytes
// than the cache may hold; 4 threads read them all at once, twice, every
// byte checked against cachedByte, and one mapped shared and private
// (its pages then stay, pinned); /proc/mounts must say cache=loose and
// /proc/meminfo's Cached must stay within a quarter of MemTotal (the
// cache's bound, kernel/core's sharecache.rs). Then the program takes and
// touches most of MemAvailable, more than is free, so the kernel must give
// the cache's pages back (else it kills the program for want of memory),
// and reads every file once more.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// cachedByte is byte `off` of /data/c`file`.bin (the host writes the same).
func cachedByte(file, off int) byte {
	return byte(off*7 + off>>12 + file*13)
}

func cachedShare() {
	mounts := read("/proc/mounts")
	if !strings.Contains(mounts, " /data 9p ro,relatime,cache=loose ") {
		fail("/proc/mounts does not show /data read-only with cache=loose:\n%s", mounts)
	}
	entries, err := os.ReadDir("/data")
	check("readdir", err)
	var files []int
	for _, e := range entries {
		var n int
		if _, err := fmt.Sscanf(e.Name(), "c%d.bin", &n); err == nil {
			files = append(files, n)
		}
	}
	if len(files) == 0 {
		fail("no /data/cN.bin")
	}
	for pass := 1; pass <= 2; pass++ {
		readCached(files)
	}
	mapCached(files[0])
	total, cached := meminfoKiB("MemTotal"), meminfoKiB("Cached")
	if cached > total/4+1024 {
		fail("Cached %d KiB after reading the share: more than a quarter of MemTotal %d KiB", cached, total)
	}
	fmt.Printf("read %d files twice; Cached %d KiB of MemTotal %d KiB\n", len(files), cached, total)
	hog := takeMemory(meminfoKiB("MemAvailable") * 7 / 10)
	fmt.Printf("took %d MiB; Cached now %d KiB\n", len(hog), meminfoKiB("Cached"))
	readCached(files)
	runtime.KeepAlive(hog)
	fmt.Println("the cache gave its memory back")
}

// readCached reads every file from 4 threads at once (each file by one),
// checking each byte.
func readCached(files []int) {
	var wg sync.WaitGroup
	errs := make(chan error, len(files))
	next := make(chan int, len(files))
	for _, f := range files {
		next <- f
	}
	close(next)
	for t := 0; t < 4; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			for f := range next {
				if err := checkCached(f); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fail("%v", err)
	}
}

func checkCached(file int) error {
	f, err := os.Open(fmt.Sprintf("/data/c%d.bin", file))
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	buf := make([]byte, 100_000) // not a multiple of a page
	off := 0
	for {
		n, err := f.Read(buf)
		for i, b := range buf[:n] {
			if b != cachedByte(file, off+i) {
				return fmt.Errorf("c%d.bin: byte %d is %#x, want %#x", file, off+i, b, cachedByte(file, off+i))
			}
		}
		off += n
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if int64(off) != st.Size() {
		return fmt.Errorf("c%d.bin: read %d bytes, stat says %d", file, off, st.Size())
	}
	return nil
}

// mapCached maps /data/c`file`.bin shared and private, read-only, and
// checks every byte of both mappings, then reads the file again.
func mapCached(file int) {
	f, err := os.Open(fmt.Sprintf("/data/c%d.bin", file))
	check("open", err)
	defer f.Close()
	st, err := f.Stat()
	check("stat", err)
	for _, flags := range []int{syscall.MAP_SHARED, syscall.MAP_PRIVATE} {
		m, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, flags)
		check("mmap", err)
		for off, b := range m {
			if b != cachedByte(file, off) {
				fail("c%d.bin mapped (flags %#x): byte %d is %#x, want %#x", file, flags, off, b, cachedByte(file, off))
			}
		}
		check("munmap", syscall.Munmap(m))
	}
	if err := checkCached(file); err != nil {
		fail("after mmap: %v", err)
	}
}

// takeMemory allocates kib KiB in 1 MiB blocks and touches every page.
func takeMemory(kib int) [][]byte {
	var hog [][]byte
	for i := 0; i < kib/1024; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		hog = append(hog, b)
	}
	return hog
}

// meminfoKiB is a /proc/meminfo field in KiB.
func meminfoKiB(field string) int {
	f, err := os.Open("/proc/meminfo")
	check("open /proc/meminfo", err)
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		name, rest, _ := strings.Cut(s.Text(), ":")
		if name == field {
			v, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			check("meminfo "+field, err)
			return v
		}
	}
	fail("no %s in /proc/meminfo", field)
	return 0
}
