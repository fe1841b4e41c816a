// Command hello is the footprint benchmark: the smallest useful Go program.
// It prints a greeting and one BENCH line with when main began (guest
// CLOCK_BOOTTIME), the memory the kernel reports in use (sysinfo: total
// minus free RAM) and the process's peak resident set (getrusage, where
// the kernel has it), then powers off. `gometal bench` boots it at shrinking
// -m to find the smallest memory each kernel runs it in.
package main

import (
	"fmt"
	"syscall"

	"gometal.dev/gometal/bench/internal/guest"
)

func main() {
	boot := guest.BootMS()
	fmt.Println("Hello, world!")
	kv := []any{"boot_ms", boot}
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err == nil {
		unit := uint64(si.Unit)
		if unit == 0 {
			unit = 1
		}
		kv = append(kv, "total_kib", si.Totalram*unit/1024, "used_kib", (si.Totalram-si.Freeram)*unit/1024)
	} else {
		kv = append(kv, "sysinfo_error", err.Error())
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		kv = append(kv, "maxrss_kib", ru.Maxrss)
	} else {
		kv = append(kv, "rusage_error", err.Error())
	}
	guest.Report("hello", kv...)
	guest.PowerOff()
}
