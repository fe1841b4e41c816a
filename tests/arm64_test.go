package tests

// The arm64 port's boot tests: every case of TestBoot on QEMU's arm64
// virt (Cortex-A72, GICv3) with the arm64 kernel ($GOMETAL_KERNEL_ARM64,
// else built from the checkout like the riscv64 one), and the images
// `gometal build -arch arm64` makes. The tests that start gometal
// themselves boot arm64 through forArches (arches_test.go).

import (
	"os"
	"path/filepath"
	"testing"

	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// TestBootArm64 boots every TestBoot case on arm64, at fewer runs than
// riscv64 (arm64Runs); GOMETAL_TEST_ARM64=all boots every run.
func TestBootArm64(t *testing.T) { bootCases(t, arm64, arm64Runs) }

// arm64Runs is the runs of a case on arm64: the port, not the placement
// policies, is under test there, so an SMP case boots at 1 and 4 CPUs under
// one policy each (riscv64 boots every policy at 2 and 4); the other cases
// at their own core counts.
func arm64Runs(c bootCase) []bootRun {
	all := c.runs()
	if !c.smp || os.Getenv("GOMETAL_TEST_ARM64") == "all" {
		return all
	}
	var rs []bootRun
	for _, r := range all {
		if (r.cores == 1 || r.cores == 4) && r.sched == policiesAt(r.cores)[0] {
			rs = append(rs, r)
		}
	}
	return rs
}

// arm64UBoot is Debian's U-Boot for QEMU's arm64 virt (u-boot-qemu), run
// as the machine's firmware (-bios).
const arm64UBoot = "/usr/lib/u-boot/qemu_arm64/u-boot.bin"

// TestImageArm64 is TestImage's arm64 half: `gometal build -arch arm64`
// booted with no gometal in between, by QEMU -kernel on arm64 virt (GICv3
// and GICv2, Cortex-A72 and -cpu max, entered at EL1 and at EL2) and by
// U-Boot's distro boot (extlinux.conf on an SD-card-like disk, booti), the
// PL011 as the program's stdin and stdout, the exit status through
// semihosting (the loader's `semihosting`, which the image's own command
// line keeps).
func TestImageArm64(t *testing.T) {
	needArm64(t)
	img := buildArm64Image(t, filepath.Join(t.TempDir(), "app.img"), []string{"-v"}, "2", "3", "yes", "typed\n")
	t.Run("qemu", func(t *testing.T) {
		t.Parallel()
		out, status := bootQEMU(t, qemu.Config{Machine: machine.ARM64Virt, SMP: 2, Memory: "256M", Kernel: img, Append: "semihosting"}, "typed\n\x04")
		expect(t, out, status, 3, "PASS board (NumCPU=2, exiting with 3)", "kernel and program image at 0x40200000")
	})
	// README.md's, docs/boards.md's and gometal build -h's command lines,
	// exactly as written (imagedoc_test.go).
	t.Run("documented", func(t *testing.T) {
		t.Parallel()
		bootDocumented(t, arm64)
	})
	// The other interrupt controller, the newest CPU model (LSE atomics,
	// SVE, pointer authentication: more HWCAP bits), and entry at EL2 with
	// PSCI over SMC (virtualization=on: the kernel drops to EL1 itself).
	for _, c := range []struct {
		name  string
		m     *machine.Machine
		extra []string
	}{
		{"qemu-gicv2", machine.ARM64VirtGICv2, nil},
		{"qemu-cpu-max", machine.ARM64VirtMax, nil},
		{"qemu-el2", machine.ARM64Virt, []string{"-machine", "virtualization=on"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, status := bootQEMU(t, qemu.Config{Machine: c.m, SMP: 2, Memory: "256M", Kernel: img, Append: "semihosting", Extra: c.extra}, "typed\n\x04")
			expect(t, out, status, 3, "PASS board (NumCPU=2, exiting with 3)", "2 of 2 CPUs online")
		})
	}
	// What -accel kvm or hvf does: no semihosting (it needs TCG), so the
	// status comes from the kernel's last console line (qemu.Run).
	t.Run("qemu-exit-on-console", func(t *testing.T) {
		t.Parallel()
		asUnderKVM := *machine.ARM64Virt
		asUnderKVM.Exit = machine.ExitConsole
		out, status := bootQEMU(t, qemu.Config{Machine: &asUnderKVM, SMP: 2, Memory: "256M", Kernel: img}, "typed\n\x04")
		expect(t, out, status, 3, "PASS board (NumCPU=2, exiting with 3)", "gometal: exit status 3; powering off")
	})
	t.Run("uboot", func(t *testing.T) {
		t.Parallel()
		if _, err := os.Stat(arm64UBoot); err != nil {
			t.Skipf("U-Boot for QEMU is not installed (%v): make deps installs u-boot-qemu", err)
		}
		conf := extlinux + "    append semihosting\n"
		disk := sdCard(t, map[string][]byte{"app.img": mustReadFile(t, img), "extlinux/extlinux.conf": []byte(conf)})
		out, status := bootQEMU(t, qemu.Config{Machine: machine.ARM64Virt, SMP: 2, Memory: "512M",
			Extra: []string{"-bios", arm64UBoot, "-drive", "file=" + disk + ",format=raw,if=virtio"}}, "typed\n\x04")
		expect(t, out, status, 3, "Starting kernel", "PASS board (NumCPU=2, exiting with 3)")
	})
	t.Run("uboot-relocated", func(t *testing.T) {
		t.Parallel()
		if _, err := os.Stat(arm64UBoot); err != nil {
			t.Skipf("U-Boot for QEMU is not installed (%v): make deps installs u-boot-qemu", err)
		}
		// text_offset 4 KiB past 2 MiB: booti puts the image at an address
		// Linux could not run at (booting.rst wants 2 MiB alignment); the
		// kernel maps itself in 4 KiB pages there.
		conf := extlinux + "    append semihosting\n"
		disk := sdCard(t, map[string][]byte{"app.img": withTextOffset(t, img, 0x201000), "extlinux/extlinux.conf": []byte(conf)})
		out, status := bootQEMU(t, qemu.Config{Machine: machine.ARM64Virt, SMP: 2, Memory: "512M",
			Extra: []string{"-bios", arm64UBoot, "-drive", "file=" + disk + ",format=raw,if=virtio"}}, "typed\n\x04")
		expect(t, out, status, 3, "kernel and program image at 0x40401000", "PASS board (NumCPU=2, exiting with 3)")
	})
}
