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
	Binary  string // path to qemu-system-riscv64
	Machine string // -M; "" means "virt"
	SMP     int    // number of harts; 0 means QEMU's default (1)
	Memory  string // -m, QEMU syntax: "256M", "1G"; "" means QEMU's default
	BIOS    string // -bios; "" means "default" (QEMU's bundled OpenSBI)
	Kernel  string // -kernel: an ELF or raw image
	Initrd  string // -initrd; optional
	Append  string // -append: the kernel command line; optional
	GDB     bool   // -s -S: wait for a debugger on localhost:1234
	// Entropy adds a virtio-rng device fed from the host's /dev/urandom.
	Entropy bool
	// StdioPorts adds a multiport virtio console whose ports 1, 2 and 3
	// are the guest program's stdin, stdout and stderr, on the sockets Run
	// passes QEMU as descriptors 3, 4 and 5 (Stdio.Ports).
	StdioPorts bool
	// Mounts share host directories over virtio-9p (mount.go).
	Mounts []Mount
	// Net adds a virtio-net device on the user-mode network (net.go).
	Net   *Net
	Extra []string // appended verbatim, last, so they can override
}

// StdioPortNames name the console ports (a Linux guest shows them as
// /dev/virtio-ports/NAME); the gometal kernel finds them by number.
var StdioPortNames = []string{"gometal.stdin", "gometal.stdout", "gometal.stderr"}

// deviceArgs are the virtio devices Entropy and StdioPorts ask for.
func (c Config) deviceArgs() []string {
	var args []string
	if c.Entropy {
		args = append(args, "-object", "rng-random,id=rng0,filename=/dev/urandom", "-device", "virtio-rng-device,rng=rng0")
	}
	if c.StdioPorts {
		args = append(args, "-device", "virtio-serial-device,max_ports=4")
		for i, name := range StdioPortNames {
			id := fmt.Sprintf("port%d", i+1)
			args = append(args,
				"-chardev", fmt.Sprintf("socket,id=%s,fd=%d", id, 3+i),
				"-device", fmt.Sprintf("virtserialport,chardev=%s,nr=%d,name=%s", id, i+1, name))
		}
	}
	args = append(args, netArgs(c.Net)...)
	return append(args, mountArgs(c.Mounts)...)
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
	args = append(args, c.deviceArgs()...)
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
