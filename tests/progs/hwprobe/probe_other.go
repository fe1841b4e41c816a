//go:build !riscv64

package main

import (
	"fmt"
	"runtime"
	"syscall"
)

// probe: riscv_hwprobe is riscv64's; on arm64 number 258 is unassigned,
// and Linux answers ENOSYS.
func probe([]string) {
	_, _, e := syscall.Syscall6(258, 0, 0, 0, 0, 0, 0)
	if e != syscall.ENOSYS {
		fail("syscall 258 on %s: %v, want ENOSYS", runtime.GOARCH, e)
		return
	}
	fmt.Printf("hwprobe: riscv_hwprobe does not exist on %s: ENOSYS, as Linux answers\n", runtime.GOARCH)
}
