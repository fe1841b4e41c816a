// Command hostile hands the kernel bad pointers and unknown requests. Each
// must fail with the errno Linux gives, and the kernel must keep running.
// An argument, if given, is the tag of its PASS line (the trace case runs it
// under another name).
package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// kernelAddr is inside gometal's kernel half (and Linux's): never valid
// for a user pointer.
const kernelAddr = 0xffffffc080200000

var failed bool

func expect(what string, got, want syscall.Errno) {
	if got != want {
		fmt.Printf("FAIL hostile: %s: errno %d (%v), want %d (%v)\n", what, got, got, want, want)
		failed = true
		return
	}
	fmt.Printf("ok: %s -> %v\n", what, want)
}

func main() {
	_, _, e := syscall.Syscall(syscall.SYS_WRITE, 1, kernelAddr, 16)
	expect("write from a kernel address", e, syscall.EFAULT)

	_, _, e = syscall.Syscall(syscall.SYS_READ, 0, kernelAddr, 16)
	expect("read into a kernel address", e, syscall.EFAULT)

	_, _, e = syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, kernelAddr, 0)
	expect("clock_gettime into a kernel address", e, syscall.EFAULT)

	_, _, e = syscall.Syscall(syscall.SYS_WRITE, 1, 0x1000, 16)
	expect("write from an unmapped address", e, syscall.EFAULT)

	_, _, e = syscall.Syscall6(syscall.SYS_FUTEX, kernelAddr, 0, 0, 0, 0, 0)
	expect("futex wait on a kernel address", e, syscall.EFAULT)

	_, _, e = syscall.Syscall6(syscall.SYS_MMAP, kernelAddr, 4096, 3, 0x32 /* PRIVATE|ANON|FIXED */, ^uintptr(0), 0)
	expect("mmap MAP_FIXED over the kernel", e, syscall.ENOMEM)

	_, _, e = syscall.Syscall(syscall.SYS_MUNMAP, kernelAddr, 4096, 0)
	expect("munmap of the kernel", e, syscall.EINVAL)

	path := []byte("/init\x00")
	_, _, e = syscall.Syscall6(syscall.SYS_OPENAT, ^uintptr(99), uintptr(unsafe.Pointer(&path[0])), 0, 0, 0, 0)
	if e != 0 {
		fmt.Println("FAIL hostile: openat(AT_FDCWD, /init):", e)
		failed = true
	}

	_, _, e = syscall.Syscall(syscall.SYS_CLOSE, 999, 0, 0)
	expect("close of a descriptor never opened", e, syscall.EBADF)

	for i := 0; i < 3; i++ { // logged once, answered every time
		_, _, e = syscall.Syscall(450, 0, 0, 0)
		expect("unknown syscall 450", e, syscall.ENOSYS)
	}

	_, _, e = syscall.Syscall(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0)
	expect("fork (no processes on gometal)", e, syscall.ENOSYS)

	var ts syscall.Timespec
	_, _, e = syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 99, uintptr(unsafe.Pointer(&ts)), 0)
	expect("clock_gettime of an unknown clock", e, syscall.EINVAL)

	if failed {
		os.Exit(1)
	}
	tag := "hostile" // or the case name the test runs this program under
	if len(os.Args) > 1 {
		tag = os.Args[1]
	}
	fmt.Println("PASS " + tag)
}
