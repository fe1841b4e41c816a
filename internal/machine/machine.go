// Package machine describes, as data, every machine gometal knows how to
// boot under QEMU: its architecture, the QEMU binary and the Debian package
// that provides it, -M and -cpu, the firmware and how the kernel is loaded,
// the console and the virtio transport, how many CPUs it may have and how
// the program's exit status reaches the host. `gometal run`, `exec`,
// `bench` (which boots Debian's Linux on the same machine for comparison)
// and the tests all start QEMU from these descriptions (internal/qemu turns
// one into an argv), so a new architecture or board is a new table entry
// (table.go) plus a kernel, not edits scattered over the CLI.
//
// Some machines are described before gometal's kernel runs on them
// (Supported false): choosing one is a one-line error, never a half boot.
package machine

import (
	"debug/elf"
	"fmt"
	"strings"
)

// Arch is an instruction-set architecture gometal's programs are built for.
type Arch struct {
	Name string      // the GOARCH (also Debian's architecture name): "riscv64"
	ELF  elf.Machine // e_machine of its binaries: EM_RISCV (243), EM_AARCH64 (183)
	// QEMU is the system emulator for the architecture, QEMUPackage the
	// Debian package that installs it.
	QEMU, QEMUPackage string
	// LinuxImage is Debian's meta-package for the architecture's Linux
	// kernel, the one `gometal bench` compares with.
	LinuxImage string
	// CrossCC is Debian's C cross compiler for Linux on the architecture
	// (bench's C program), CrossCCPackage the package providing it.
	CrossCC, CrossCCPackage string
	// NeedsCPU says why a machine of the architecture must name its CPU
	// (-cpu): QEMU's default CPU for it cannot run gometal's kernel. ""
	// when the default can.
	NeedsCPU string
}

// BuildEnv is the environment that makes `go build` produce a program for
// a: a static Linux executable (no C library, no dynamic loader).
func (a *Arch) BuildEnv() []string {
	return []string{"GOOS=linux", "GOARCH=" + a.Name, "CGO_ENABLED=0"}
}

// BuildHint is BuildEnv as a user types it before `go build`.
func (a *Arch) BuildHint() string { return strings.Join(a.BuildEnv(), " ") }

// Machine is one QEMU machine model with everything needed to boot a
// kernel on it.
type Machine struct {
	Name string // what gometal calls it: "riscv64-virt"
	Arch *Arch
	// Type and Options make QEMU's -M argument ("virt,gic-version=3").
	Type    string
	Options []string
	CPU     string // -cpu; "" leaves QEMU's default for the machine (Arch.NeedsCPU)
	// MinCPUs and MaxCPUs bound -smp as QEMU 7.2 does for the machine.
	MinCPUs, MaxCPUs int
	// Boot is how gometal starts its kernel; Loaders are the other ways a
	// Linux Image is known to start on this machine (U-Boot, UEFI:
	// docs/boards.md), for `gometal build`'s images.
	Boot    Boot
	Loaders []Boot
	// UART is the console's device-tree compatible (what the kernel's
	// console driver must speak); LinuxConsole is Linux's name for it
	// (console= when bench boots Linux).
	UART, LinuxConsole string
	// Virtio is the transport QEMU's virtio devices (the stdio ports,
	// entropy, 9P shares, the NIC) attach to; NoVirtio: the machine has none.
	Virtio Transport
	Exit   Exit // how the program's exit status reaches QEMU's
	// MinMemory is the least guest memory (bytes, QEMU's -m) the machine
	// boots gometal's kernel and a small program in, measured with
	// examples/hello (table.go says what fails below it).
	MinMemory uint64
	// Supported is true when gometal's kernel boots on this machine.
	Supported bool
}

// MachineArg is QEMU's -M value.
func (m *Machine) MachineArg() string {
	return strings.Join(append([]string{m.Type}, m.Options...), ",")
}

// CheckMemory returns nil when size bytes of memory are enough for m to
// boot, else one line naming m's minimum.
func (m *Machine) CheckMemory(size uint64) error {
	if size < m.MinMemory {
		return fmt.Errorf("%s boots with at least %s of memory", m.Name, FormatSize(m.MinMemory))
	}
	return nil
}

// FormatSize writes a size in bytes as QEMU's -m takes it: "16M", "1G".
func FormatSize(n uint64) string {
	for _, u := range []struct {
		suffix string
		size   uint64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.suffix)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// Load is how a kernel image reaches the machine's memory.
type Load int

const (
	// LoadKernel: QEMU's -kernel (with -initrd and -append) loads the
	// image and the firmware (or QEMU's own boot code) jumps to it.
	LoadKernel Load = iota + 1
	// LoadBooti: QEMU's loader device puts the image at Boot.Addr and
	// U-Boot starts it with `booti Addr - ${fdtcontroladdr}`.
	LoadBooti
	// LoadUEFI: the image is EFI/BOOT/BOOT<arch>.EFI on a FAT disk that
	// the UEFI firmware starts by itself.
	LoadUEFI
)

// Boot is one way to start a kernel on a machine: the firmware QEMU runs
// first and how the kernel gets into memory.
type Boot struct {
	Name string // "opensbi", "qemu", "u-boot", "uefi"
	// BIOS is QEMU's -bios: "default" for the firmware QEMU bundles
	// (OpenSBI on riscv64), a file, or "" for none (QEMU's own boot code
	// starts the kernel, as on arm64 virt).
	BIOS string
	// Stage2 is a loader QEMU starts with -kernel before gometal's image
	// (S-mode U-Boot runs under OpenSBI); "" for none.
	Stage2 string
	Load   Load
	Addr   uint64 // LoadBooti: where the loader device puts the image
	// Packages are the Debian packages the firmware files come from.
	Packages []string
}

// FirmwareArgs are the QEMU arguments that select b's firmware.
func (b Boot) FirmwareArgs() []string {
	if b.BIOS == "" {
		return nil
	}
	return []string{"-bios", b.BIOS}
}

// Transport is the bus QEMU's virtio devices sit on.
type Transport int

const (
	NoVirtio   Transport = iota // the machine has no virtio devices (a board)
	VirtioMMIO                  // virtio-mmio slots (QEMU's virt machines)
	VirtioPCI                   // virtio-pci functions on the machine's PCIe bus
)

// Transports are the -virtio values, by name.
var Transports = map[string]Transport{"mmio": VirtioMMIO, "pci": VirtioPCI}

// ParseTransport reads a -virtio value: "mmio" or "pci" ("" is the
// machine's own).
func ParseTransport(s string) (Transport, error) {
	if s == "" {
		return NoVirtio, nil
	}
	if t, ok := Transports[s]; ok {
		return t, nil
	}
	return NoVirtio, fmt.Errorf("%q: want mmio or pci", s)
}

// Device is QEMU's -device name for the virtio device kind ("virtio-rng",
// "virtio-net") on t: "virtio-rng-device" on virtio-mmio,
// "virtio-rng-pci" on PCI; "" with none.
func (t Transport) Device(kind string) string {
	switch t {
	case VirtioMMIO:
		return kind + "-device"
	case VirtioPCI:
		return kind + "-pci"
	}
	return ""
}

// WithVirtio is m with its virtio devices on t instead (a copy; m itself
// when t is NoVirtio, which keeps the machine's own, or when m has no
// virtio devices at all: a board stays a board).
func (m *Machine) WithVirtio(t Transport) *Machine {
	if t == NoVirtio || m.Virtio == NoVirtio || m.Virtio == t {
		return m
	}
	c := *m
	c.Virtio = t
	return &c
}

// Exit is how the exit status of the program reaches the host.
type Exit int

const (
	// ExitTestDevice: the SiFive test device ("sifive,test0" on riscv64
	// virt); the kernel writes the status to it and QEMU exits with it.
	ExitTestDevice Exit = iota + 1
	// ExitSemihosting: Arm semihosting SYS_EXIT, which QEMU honours only
	// with -semihosting-config enable=on,target=native.
	ExitSemihosting
	// ExitConsole: no device the host can see (a board's power-off is
	// just off); the kernel prints the status on the console, then stops.
	ExitConsole
)

// ExitFor is how the exit status leaves m under accelerator a.
// Semihosting needs TCG: under KVM and HVF the guest's `hlt #0xf000`
// never reaches QEMU (it is an undefined instruction in the guest), so
// there the kernel's console line carries the status (qemu.Run reads it).
func (m *Machine) ExitFor(a Accel) Exit {
	if m.Exit == ExitSemihosting && a.Native() {
		return ExitConsole
	}
	return m.Exit
}

// KernelArgs are the kernel options the exit mechanism needs: gometal's
// kernel uses semihosting only when told the host enabled it (an Arm
// semihosting call without it is an undefined instruction).
func (e Exit) KernelArgs() []string {
	if e == ExitSemihosting {
		return []string{"semihosting"}
	}
	return nil
}

// QEMUArgs are the QEMU arguments the exit mechanism needs.
func (e Exit) QEMUArgs() []string {
	if e == ExitSemihosting {
		return []string{"-semihosting-config", "enable=on,target=native"}
	}
	return nil
}
