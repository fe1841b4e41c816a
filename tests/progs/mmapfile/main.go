// Command mmapfile checks file-backed mmap on the in-memory tree:
// MAP_SHARED pages are the file's (stores reach read and pread, writes to
// the file show in the mapping, msync and munmap keep them), MAP_PRIVATE
// stores stay private, golang.org/x/exp/mmap reads a file, and bad
// requests get Linux's errors. With the argument "sigbus" it touches a
// mapped page wholly past the end of a file, which must end it with
// SIGBUS as on Linux.
package main

import (
	"bytes"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/exp/mmap"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL mmapfile: "+format+"\n", a...)
	os.Exit(1)
}

func check(what string, err error) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

const size = 3*4096 + 100

func pattern() []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i*7 + i/4096)
	}
	return b
}

func main() {
	dir, err := os.MkdirTemp("", "mmap-*")
	check("MkdirTemp", err)
	if len(os.Args) == 2 && os.Args[1] == "sigbus" {
		beyondEnd(dir + "/short")
	}
	path := dir + "/data"
	want := pattern()
	check("WriteFile", os.WriteFile(path, want, 0o644))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	check("open", err)
	fd := int(f.Fd())

	shared(f, fd, want)
	private(f, fd)
	errorsAsLinux(path, fd)
	expMmap(path)
	fmt.Println("PASS mmapfile")
}

func shared(f *os.File, fd int, want []byte) {
	m, err := syscall.Mmap(fd, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	check("mmap shared", err)
	if !bytes.Equal(m, want) {
		fail("shared mapping does not hold the file's bytes")
	}
	// A store through the mapping is in the file at once.
	copy(m[4096+10:], "through the mapping")
	got := make([]byte, 19)
	_, err = f.ReadAt(got, 4096+10)
	check("pread", err)
	if string(got) != "through the mapping" {
		fail("pread after a store to the shared mapping: %q", got)
	}
	// A write to the file shows in the mapping.
	_, err = f.WriteAt([]byte("through pwrite"), 2*4096+5)
	check("pwrite", err)
	if string(m[2*4096+5:2*4096+19]) != "through pwrite" {
		fail("shared mapping after pwrite: %q", m[2*4096+5:2*4096+19])
	}
	check("msync", msync(m, 4 /* MS_SYNC */))
	// A second mapping at an offset sees the same page.
	m2, err := syscall.Mmap(fd, 4096, 4096, syscall.PROT_READ, syscall.MAP_SHARED)
	check("mmap at offset", err)
	if string(m2[10:29]) != "through the mapping" {
		fail("second shared mapping at offset 4096: %q", m2[10:29])
	}
	check("munmap", syscall.Munmap(m2))
	check("munmap", syscall.Munmap(m))
	back, err := os.ReadFile(f.Name())
	check("ReadFile", err)
	if !bytes.Contains(back, []byte("through the mapping")) || len(back) != size {
		fail("file after munmap: %d bytes", len(back))
	}
	fmt.Println("mmap shared: stores reach the file, pwrite reaches the mapping, msync ok")
}

func private(f *os.File, fd int) {
	m, err := syscall.Mmap(fd, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	check("mmap private", err)
	if string(m[4096+10:4096+29]) != "through the mapping" {
		fail("private mapping does not hold the file's bytes")
	}
	copy(m[100:], "private store")
	got := make([]byte, 13)
	_, err = f.ReadAt(got, 100)
	check("pread", err)
	if string(got) == "private store" {
		fail("a store to a MAP_PRIVATE mapping reached the file")
	}
	check("munmap", syscall.Munmap(m))
	fmt.Println("mmap private: stores stay in the mapping")
}

func errorsAsLinux(path string, fd int) {
	if _, err := syscall.Mmap(fd, 100, 4096, syscall.PROT_READ, syscall.MAP_SHARED); err != syscall.EINVAL {
		fail("mmap at an unaligned offset: %v, want EINVAL", err)
	}
	ro, err := os.Open(path)
	check("open read-only", err)
	if _, err := syscall.Mmap(int(ro.Fd()), 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED); err != syscall.EACCES {
		fail("writable shared mmap of a read-only fd: %v, want EACCES", err)
	}
	m, err := syscall.Mmap(int(ro.Fd()), 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	check("writable private mmap of a read-only fd", err)
	syscall.Munmap(m)
	ro.Close()
	r, w, err := os.Pipe()
	check("pipe", err)
	if _, err := syscall.Mmap(int(r.Fd()), 0, 4096, syscall.PROT_READ, syscall.MAP_SHARED); err != syscall.ENODEV {
		fail("mmap of a pipe: %v, want ENODEV", err)
	}
	r.Close()
	w.Close()
	// Shrinking a mapped file must not free pages still mapped.
	m, err = syscall.Mmap(fd, 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	check("mmap before truncate", err)
	if m[size-1] != pattern()[size-1] { // every page mapped before the file shrinks
		fail("mapping before truncate: last %d", m[size-1])
	}
	check("truncate", os.Truncate(path, 10))
	// Within the file's last page: the kept bytes, then zeros (the pages
	// past it are SIGBUS now, as on Linux).
	if m[0] != pattern()[0] || m[10] != 0 || m[4095] != 0 {
		fail("mapping after truncate: first %d, past the end %d %d", m[0], m[10], m[4095])
	}
	check("munmap", syscall.Munmap(m))
	fmt.Println("mmap errors: EINVAL, EACCES, ENODEV as on Linux; truncate under a mapping ok")
}

func expMmap(path string) {
	content := bytes.Repeat([]byte("golang.org/x/exp/mmap "), 1000)
	check("WriteFile", os.WriteFile(path, content, 0o644))
	r, err := mmap.Open(path)
	check("mmap.Open", err)
	if r.Len() != len(content) {
		fail("mmap.ReaderAt length %d, want %d", r.Len(), len(content))
	}
	buf := make([]byte, 22)
	_, err = r.ReadAt(buf, 22*500)
	check("ReaderAt", err)
	if string(buf) != "golang.org/x/exp/mmap " {
		fail("mmap.ReaderAt read %q", buf)
	}
	check("close", r.Close())
	fmt.Println("golang.org/x/exp/mmap: read ok")
}

func msync(b []byte, flags int) error {
	_, _, e := syscall.Syscall(syscall.SYS_MSYNC, uintptr(unsafePointer(b)), uintptr(len(b)), uintptr(flags))
	if e != 0 {
		return e
	}
	return nil
}

// beyondEnd maps two pages of a 100-byte file: the rest of the first page
// reads as zero, the second page is SIGBUS (the program dies here).
func beyondEnd(path string) {
	check("WriteFile", os.WriteFile(path, bytes.Repeat([]byte{'x'}, 100), 0o644))
	f, err := os.Open(path)
	check("open", err)
	m, err := syscall.Mmap(int(f.Fd()), 0, 2*4096, syscall.PROT_READ, syscall.MAP_SHARED)
	check("mmap", err)
	if m[99] != 'x' || m[100] != 0 || m[4095] != 0 {
		fail("the first page: %q %q %q", m[99], m[100], m[4095])
	}
	fmt.Println("the last page ends in zeros; touching the page past the end")
	fmt.Println(m[4096])
	fail("a page past the end of the file read as %d, want SIGBUS", m[4096])
}
