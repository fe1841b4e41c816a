// Package qemu boots a RISC-V virt machine with qemu-system-riscv64 and
// relays its console and exit status. It knows nothing about gometal's
// kernel, so the same code boots a Linux kernel with the same initramfs
// for benchmark comparisons.
package qemu

import (
	"fmt"
	"strconv"
)

// Config describes one QEMU run. Args turns it into an argv; keeping that a
// pure function makes the exact command line testable and printable.
type Config struct {
	Binary  string   // path to qemu-system-riscv64
	Machine string   // -M; "" means "virt"
	SMP     int      // number of harts; 0 means QEMU's default (1)
	Memory  string   // -m, QEMU syntax: "256M", "1G"; "" means QEMU's default
	BIOS    string   // -bios; "" means "default" (QEMU's bundled OpenSBI)
	Kernel  string   // -kernel: an ELF or raw image
	Initrd  string   // -initrd; optional
	Append  string   // -append: the kernel command line; optional
	GDB     bool     // -s -S: wait for a debugger on localhost:1234
	Extra   []string // appended verbatim, last, so they can override
}

// GDBPort is where -s makes QEMU's gdb stub listen.
const GDBPort = 1234

// Args returns the full argv, starting with c.Binary.
//
// The console: the first UART is connected to a stdio chardev, with no
// monitor multiplexed onto it, so every byte the guest prints reaches our
// stdout and every byte of our stdin reaches the guest (piped input works).
// signal=on keeps the terminal's ISIG so that Ctrl-C stops QEMU instead of
// being sent to the guest as a 0x03 byte, which is what -nographic does.
// -no-reboot turns a guest reboot into an exit, so a run always ends.
func (c Config) Args() []string {
	args := []string{c.Binary,
		"-M", or(c.Machine, "virt"),
	}
	if c.SMP > 0 {
		args = append(args, "-smp", strconv.Itoa(c.SMP))
	}
	if c.Memory != "" {
		args = append(args, "-m", c.Memory)
	}
	args = append(args, "-bios", or(c.BIOS, "default"))
	if c.Kernel != "" {
		args = append(args, "-kernel", c.Kernel)
	}
	if c.Initrd != "" {
		args = append(args, "-initrd", c.Initrd)
	}
	if c.Append != "" {
		args = append(args, "-append", c.Append)
	}
	args = append(args,
		"-display", "none",
		"-chardev", "stdio,id=con,signal=on",
		"-serial", "chardev:con",
		"-monitor", "none",
		"-no-reboot",
	)
	if c.GDB {
		args = append(args, "-s", "-S")
	}
	return append(args, c.Extra...)
}

// Validate catches mistakes QEMU would report less clearly.
func (c Config) Validate() error {
	if c.Binary == "" {
		return fmt.Errorf("no QEMU binary")
	}
	if c.SMP < 0 || c.SMP > MaxHarts {
		return fmt.Errorf("-smp %d: the virt machine has 1 to %d harts", c.SMP, MaxHarts)
	}
	if c.Memory != "" {
		if _, err := ParseSize(c.Memory); err != nil {
			return err
		}
	}
	return nil
}

// MaxHarts is the most harts QEMU 7.2's virt machine supports
// (VIRT_CPUS_MAX).
const MaxHarts = 512

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
