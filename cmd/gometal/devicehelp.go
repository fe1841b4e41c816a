package main

import (
	"fmt"
	"io"

	"gometal.dev/gometal/internal/devices"
)

// devicesHelp is `gometal help devices`: the -device catalogue, with what
// each name adds to the QEMU machine and which uio= spec the kernel gets.
func devicesHelp(w io.Writer) {
	fmt.Fprint(w, `Devices a program drives itself, through Linux's UIO interface
(gometal run -device NAME[=PARAM][@CPU], repeatable; also for exec).
Each appears as /dev/uioN with /sys/class/uio/uioN, numbered in the order
given; @CPU routes its interrupt to that CPU (default: spread over the
CPUs). The Go package gometal.dev/gometal/uio opens them.

`)
	for _, d := range devices.All() {
		name := d.Name
		if d.Param != "" {
			name += "=" + d.Param
		}
		fmt.Fprintf(w, "  %-22s %s\n", name, d.Summary)
		fmt.Fprintf(w, "  %-22s QEMU: %s\n", "", d.QEMUDevice)
		fmt.Fprintf(w, "  %-22s kernel: uio=%s\n\n", "", d.UIO)
	}
	fmt.Fprint(w, `Examples:

	gometal run -device edu ./examples/edu
	gometal run -device rtc-alarm ./examples/alarm     # on riscv64
`)
}
