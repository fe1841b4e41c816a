// Package qemu boots one of the machines internal/machine describes
// (QEMU's riscv64 and arm64 virt) and relays its console and exit status. It knows
// nothing about gometal's kernel, so the same code boots a Linux kernel
// with the same initramfs for benchmark comparisons.
package qemu

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gometal.dev/gometal/internal/machine"
)

// Config describes one QEMU run. Args turns it into an argv; keeping that a
// pure function makes the exact command line testable and printable.
type Config struct {
	// Machine is what QEMU emulates: -M, -cpu, the firmware, the virtio
	// transport, the exit device (internal/machine's table). Required.
	Machine *machine.Machine
	Binary  string // path to the machine's QEMU (Find)
	SMP     int    // number of CPUs; 0 means QEMU's default for the machine
	Memory  string // -m, QEMU syntax: "256M", "1G"; "" means QEMU's default
	Kernel  string // -kernel: an ELF or raw image
	Initrd  string // -initrd; optional
	Append  string // -append: the kernel command line; optional
	GDB     bool   // -s -S: wait for a debugger on localhost:1234
	// Entropy adds a virtio-rng device fed from the host's /dev/urandom.
	Entropy bool
	// StdioPorts adds a multiport virtio console whose ports 1, 2 and 3
	// are the guest program's stdin, stdout and stderr, and port 4 the
	// signals the host passes it, on the sockets Run passes QEMU as
	// descriptors 3, 4, 5 and 6 (Stdio.Ports).
	StdioPorts bool
	// Mounts share host directories over virtio-9p (mount.go).
	Mounts []Mount
	// Net adds a virtio-net device on the user-mode network (net.go).
	Net *Net
	// Accel is -accel: "" leaves QEMU's default (TCG); KVM and HVF also
	// make the CPU the host's (machine.CPUFor, machine.MachineArgFor).
	Accel machine.Accel
	Extra []string // appended verbatim, last, so they can override
}

// StdioPortNames name the console ports (a Linux guest shows them as
// /dev/virtio-ports/NAME); the gometal kernel finds them by number.
var StdioPortNames = []string{"gometal.stdin", "gometal.stdout", "gometal.stderr", "gometal.signal"}

// deviceArgs are the virtio devices Entropy, StdioPorts, Net and Mounts
// ask for, on the machine's virtio transport.
func (c Config) deviceArgs() []string {
	var args []string
	virtio := c.Machine.Virtio
	if c.Entropy {
		args = append(args, "-object", "rng-random,id=rng0,filename=/dev/urandom", "-device", virtio.Device("virtio-rng")+",rng=rng0")
	}
	if c.StdioPorts {
		args = append(args, "-device", virtio.Device("virtio-serial")+fmt.Sprintf(",max_ports=%d", len(StdioPortNames)+1))
		for i, name := range StdioPortNames {
			id := fmt.Sprintf("port%d", i+1)
			args = append(args,
				"-chardev", fmt.Sprintf("socket,id=%s,fd=%d", id, 3+i),
				"-device", fmt.Sprintf("virtserialport,chardev=%s,nr=%d,name=%s", id, i+1, name))
		}
	}
	args = append(args, netArgs(c.Net, virtio, max(c.SMP, 1))...)
	if c.Net == nil && virtio != machine.NoVirtio {
		// Without it QEMU's virt machines add a virtio-net-pci NIC on its
		// user network, which the kernel would drive: no network unless
		// -net asks for one.
		args = append(args, "-nic", "none")
	}
	return append(args, mountArgs(c.Mounts, virtio)...)
}

// GDBPort is where -s makes QEMU's gdb stub listen.
const GDBPort = 1234

// Args returns the full argv, starting with c.Binary; c must be valid
// (Validate).
//
// The console: the first UART is connected to a stdio chardev, with no
// monitor multiplexed onto it, so every byte the guest prints reaches our
// stdout and every byte of our stdin reaches the guest (piped input works).
// signal=on keeps the terminal's ISIG so that Ctrl-C stops QEMU instead of
// being sent to the guest as a 0x03 byte, which is what -nographic does.
// -no-reboot turns a guest reboot into an exit, so a run always ends.
func (c Config) Args() []string {
	m := c.Machine
	args := []string{c.Binary, "-M", m.MachineArgFor(c.Accel)}
	if c.Accel != "" && c.Accel != machine.AccelAuto {
		args = append(args, "-accel", string(c.Accel))
	}
	if cpu := m.CPUFor(c.Accel); cpu != "" {
		args = append(args, "-cpu", cpu)
	}
	if c.SMP > 0 {
		args = append(args, "-smp", strconv.Itoa(c.SMP))
	}
	if c.Memory != "" {
		args = append(args, "-m", c.Memory)
	}
	args = append(args, m.Boot.FirmwareArgs()...)
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
	args = append(args, m.ExitFor(c.Accel).QEMUArgs()...)
	args = append(args, c.deviceArgs()...)
	if c.GDB {
		args = append(args, "-s", "-S")
	}
	return append(args, c.Extra...)
}

// Validate catches mistakes QEMU would report less clearly, and asks for
// nothing the machine lacks.
func (c Config) Validate() error {
	m := c.Machine
	switch {
	case m == nil:
		return errors.New("no machine to boot")
	case c.Binary == "":
		return errors.New("no QEMU binary")
	case c.SMP < 0 || c.SMP > m.MaxCPUs || c.SMP > 0 && c.SMP < m.MinCPUs:
		return fmt.Errorf("-smp %d: %s has %d to %d CPUs", c.SMP, m.Name, m.MinCPUs, m.MaxCPUs)
	case m.Boot.Load != machine.LoadKernel:
		return fmt.Errorf("%s: gometal starts kernels with -kernel only, not through %s", m.Name, m.Boot.Name)
	case m.CPUFor(c.Accel) == "" && m.Arch.NeedsCPU != "":
		// Without -cpu the machine would start a CPU that cannot run the
		// kernel, silently: never build such a command line.
		return fmt.Errorf("%s names no CPU model: %s", m.Name, m.Arch.NeedsCPU)
	}
	if c.Memory != "" {
		if _, err := ParseSize(c.Memory); err != nil {
			return err
		}
	}
	if wants := c.virtioWanted(); m.Virtio == machine.NoVirtio && len(wants) > 0 {
		return fmt.Errorf("%s has no virtio devices: %s need them", m.Name, strings.Join(wants, ", "))
	}
	return nil
}

// virtioWanted names what c asks for that needs virtio devices.
func (c Config) virtioWanted() []string {
	var w []string
	if c.StdioPorts {
		w = append(w, "the stdio ports")
	}
	if c.Entropy {
		w = append(w, "the entropy device")
	}
	if len(c.Mounts) > 0 {
		w = append(w, "host directory shares (-mount)")
	}
	if c.Net != nil {
		w = append(w, "the network (-net)")
	}
	return w
}
