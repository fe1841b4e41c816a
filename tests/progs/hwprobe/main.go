// Command hwprobe checks riscv_hwprobe (riscv64 system call 258) against
// the machine: its arguments are the boot hart's riscv,isa string and the
// timebase frequency from QEMU's own device tree (the test reads them from
// a dump of it) and the machine ids QEMU defines (mvendorid 0, marchid and
// mimpid its version), and the program checks those ids and what golang.org/x/sys/unix's
// RISCVHWProbe and golang.org/x/sys/cpu report: the base behaviour (IMA),
// IMA_EXT_0 (F and D, C, Zba, Zbb, Zbc, Zbs, Zihintpause, Zca, Zcd as the
// ISA string has them; never V or Zicboz, which the kernel does not
// enable), the misaligned-access keys, the timebase, the highest user
// address (and Linux's access_ok at it), unknown keys answered as key -1,
// the CPU set and flags (WHICH_CPUS) with Linux's errnos, and EFAULT for
// pairs or a set at a kernel address. The call does not exist on arm64:
// there the program checks for ENOSYS, as Linux answers.
package main

import (
	"fmt"
	"os"
)

var failed bool

func fail(format string, args ...any) {
	fmt.Printf("FAIL hwprobe: "+format+"\n", args...)
	failed = true
}

func main() {
	probe(os.Args[1:])
	if failed {
		os.Exit(1)
	}
	fmt.Println("PASS hwprobe")
}
