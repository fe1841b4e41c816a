package machine

// The architectures and machines gometal knows. Facts checked with QEMU 7.2
// and Debian 12's packages (docs/boards.md has the loader recipes; -smp
// limits are what QEMU 7.2 accepts).

import (
	"debug/elf"
	"strconv"
)

// The architectures, in the order errors list them.
var (
	RISCV64 = &Arch{
		Name: "riscv64", ELF: elf.EM_RISCV,
		QEMU: "qemu-system-riscv64", QEMUPackage: "qemu-system-misc",
		LinuxImage: "linux-image-riscv64",
		CrossCC:    "riscv64-linux-gnu-gcc", CrossCCPackage: "gcc-riscv64-linux-gnu",
	}
	ARM64 = &Arch{
		Name: "arm64", ELF: elf.EM_AARCH64,
		QEMU: "qemu-system-aarch64", QEMUPackage: "qemu-system-arm",
		LinuxImage: "linux-image-arm64",
		CrossCC:    "aarch64-linux-gnu-gcc", CrossCCPackage: "gcc-aarch64-linux-gnu",
		NeedsCPU: "QEMU 7.2's virt machine defaults to a 32-bit Cortex-A15, which cannot run a 64-bit kernel",
	}
)

// Arches lists every described architecture.
var Arches = []*Arch{RISCV64, ARM64}

// Boot paths shared by several machines.
var (
	// openSBI: QEMU's bundled OpenSBI (fw_dynamic, M-mode) starts the
	// kernel that -kernel loaded at 0x80200000, in S-mode.
	openSBI = Boot{Name: "opensbi", BIOS: "default", Load: LoadKernel, Packages: []string{"qemu-system-data"}}
	// riscv64UBoot: S-mode U-Boot under OpenSBI, then booti.
	riscv64UBoot = Boot{Name: "u-boot", BIOS: "default", Stage2: "/usr/lib/u-boot/qemu-riscv64_smode/uboot.elf",
		Load: LoadBooti, Addr: 0x84000000, Packages: []string{"qemu-system-data", "u-boot-qemu"}}
	// arm64Direct: QEMU's own boot code starts the -kernel image at EL1
	// (PSCI is QEMU's, over HVC).
	arm64Direct = Boot{Name: "qemu", Load: LoadKernel}
	arm64UBoot  = Boot{Name: "u-boot", BIOS: "/usr/lib/u-boot/qemu_arm64/u-boot.bin",
		Load: LoadBooti, Addr: 0x40400000, Packages: []string{"u-boot-qemu"}}
	arm64UEFI = Boot{Name: "uefi", BIOS: "/usr/share/qemu-efi-aarch64/QEMU_EFI.fd",
		Load: LoadUEFI, Packages: []string{"qemu-efi-aarch64"}}
)

// The machines. For each architecture the first one listed is the one
// gometal boots its programs on (Default).
var (
	// RISCV64Virt is QEMU's generic RISC-V board: OpenSBI, a 16550 UART,
	// the PLIC, virtio-mmio slots, a PCIe host bridge, the SiFive test
	// device for power-off with a status.
	RISCV64Virt = &Machine{
		Name: "riscv64-virt", Arch: RISCV64, Type: "virt",
		MinCPUs: 1, MaxCPUs: 512,
		Boot: openSBI, Loaders: []Boot{riscv64UBoot},
		UART: "ns16550a", LinuxConsole: "ttyS0",
		Virtio: VirtioMMIO, Exit: ExitTestDevice,
		// hello boots at 13M; at 12M QEMU puts the initramfs (half way up
		// RAM) over the device tree (at the top, 2 MiB aligned), and below
		// that it cannot load the firmware. 16M leaves a program a little
		// larger than hello room.
		MinMemory: 16 << 20,
		Supported: true,
	}
	// RISCV64SifiveU is QEMU's model of the HiFive Unleashed: hart 0 is an
	// E51 without an MMU (the kernel parks it), harts 1-4 are U54s;
	// SiFive UART; no virtio, no power-off device. gometal run cannot use
	// it (no virtio consoles, no exit device the host sees); an image made
	// by gometal build boots on it (tests/image_test.go, docs/boards.md).
	RISCV64SifiveU = &Machine{
		Name: "riscv64-sifive_u", Arch: RISCV64, Type: "sifive_u",
		MinCPUs: 2, MaxCPUs: 5,
		Boot: openSBI,
		UART: "sifive,uart0", LinuxConsole: "ttySIF0",
		Virtio: NoVirtio, Exit: ExitConsole,
	}
	// ARM64Virt is QEMU's generic Arm board with a Cortex-A72 and GICv3
	// (GICv2 allows only 8 CPUs).
	ARM64Virt = arm64Virt("arm64-virt", "cortex-a72", 3, 512)
	// ARM64VirtGICv2 is ARM64Virt with the older interrupt controller.
	ARM64VirtGICv2 = arm64Virt("arm64-virt-gicv2", "cortex-a72", 2, 8)
	// ARM64VirtMax is ARM64Virt with every feature QEMU emulates (-cpu max:
	// SVE, pointer authentication, newer ID register values).
	ARM64VirtMax = arm64Virt("arm64-virt-max", "max", 3, 512)
)

// Machines lists every described machine, each architecture's default first.
var Machines = []*Machine{RISCV64Virt, RISCV64SifiveU, ARM64Virt, ARM64VirtGICv2, ARM64VirtMax}

// arm64Virt describes QEMU's arm64 virt board with a CPU model and GIC
// version: PL011 UART, virtio-mmio slots, PCIe, PSCI; the exit status
// leaves through semihosting.
func arm64Virt(name, cpu string, gic, maxCPUs int) *Machine {
	return &Machine{
		Name: name, Arch: ARM64, Type: "virt", Options: []string{"gic-version=" + strconv.Itoa(gic)}, CPU: cpu,
		MinCPUs: 1, MaxCPUs: maxCPUs,
		Boot: arm64Direct, Loaders: []Boot{arm64UBoot, arm64UEFI},
		UART: "arm,pl011", LinuxConsole: "ttyAMA0",
		Virtio: VirtioMMIO, Exit: ExitSemihosting,
		// hello boots at 15M (every CPU model, GIC and CPU count alike);
		// at 14M the kernel finds no room for its heap, below 9M QEMU
		// cannot place the device tree, the initramfs or the kernel.
		MinMemory: 16 << 20,
		Supported: true,
	}
}
