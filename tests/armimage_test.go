package tests

// The arm64 image as firmware starts it (TestImageArm64, arm64_test.go,
// has QEMU -kernel and U-Boot booti): the one file `gometal build -arch
// arm64` writes, with no gometal in between (tests/progs/board checks its
// arguments, environment, files, CPUs, stdin and entropy):
//
//   - uboot-efi: Debian's U-Boot for QEMU arm64 with only
//     EFI/BOOT/BOOTAA64.EFI on an SD-card-like disk: its distro boot starts
//     the image through U-Boot's own UEFI;
//   - uefi-dt: EDK2 (Debian's qemu-efi-aarch64) starts the image as
//     EFI/BOOT/BOOTAA64.EFI from a FAT disk on -M virt,acpi=off: the image
//     is a PE/COFF application too, takes the device tree from the EFI
//     configuration table and exits boot services;
//   - uefi-acpi: the same with QEMU's default, ACPI tables and no device
//     tree: CPUs and the GIC from the MADT, the console from the SPCR.
//
// The image ends with PSCI SYSTEM_OFF (QEMU exits 0): the status is the
// console's last line, as on a board.

import (
	"encoding/binary"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// Debian's EDK2 for QEMU's arm64 virt machine (arm64UBoot: arm64_test.go).
const edk2Arm64 = "/usr/share/qemu-efi-aarch64/QEMU_EFI.fd"

// needArm64 fails the test when arm64 cannot boot here (no QEMU or kernel).
func needArm64(t *testing.T) {
	t.Helper()
	if arm64.err != nil {
		t.Fatalf("cannot boot arm64: %v", arm64.err)
	}
}

// buildArm64Image is buildImage for arm64.
func buildArm64Image(t *testing.T, out string, flags []string, args ...string) string {
	t.Helper()
	board := filepath.Join(t.TempDir(), "board.txt")
	if err := os.WriteFile(board, []byte("board\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := append([]string{"build", "-o", out, "-arch", "arm64", "-env", "BOARD=ok", "-add", board + ":/etc/board.txt"}, flags...)
	argv = append(append(argv, arm64.prog("board")), args...)
	cmd := exec.Command(gometal, argv...)
	cmd.Env = gometalEnv()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gometal %s: %v\n%s", strings.Join(argv, " "), err, msg)
	}
	return out
}

// bootArm64 boots QEMU's arm64 virt with firmware (none: -kernel alone)
// and returns the console and QEMU's exit status.
func bootArm64(t *testing.T, bios, kernel, disk, stdin string, opts ...string) (string, int) {
	t.Helper()
	return bootArm64With(t, bios, kernel, disk, stdin, nil, opts...)
}

// bootArm64With is bootArm64 with more QEMU arguments (devices).
func bootArm64With(t *testing.T, bios, kernel, disk, stdin string, extra []string, opts ...string) (string, int) {
	t.Helper()
	m := *machine.ARM64Virt
	m.Boot = machine.Boot{Name: "test", Load: machine.LoadKernel, BIOS: bios}
	m.Options = append(append([]string(nil), m.Options...), opts...)
	if bios != "" {
		if _, err := os.Stat(bios); err != nil {
			t.Fatalf("firmware not installed (%v): make deps installs u-boot-qemu and qemu-efi-aarch64", err)
		}
	}
	cfg := qemu.Config{Machine: &m, SMP: 2, Memory: "512M", Kernel: kernel}
	if disk != "" {
		cfg.Extra = []string{"-drive", "file=" + disk + ",format=raw,if=virtio"}
	}
	cfg.Extra = append(cfg.Extra, extra...)
	return bootQEMU(t, cfg, stdin)
}

func TestImageArm64Firmware(t *testing.T) {
	needArm64(t)
	dir := t.TempDir()
	plain := buildArm64Image(t, filepath.Join(dir, "plain.img"), []string{"-v"}, "2", "3", "yes", "typed\n")
	const passed = "PASS board (NumCPU=2, exiting with 3)"
	t.Run("uboot-efi", func(t *testing.T) {
		t.Parallel()
		// No extlinux.conf: U-Boot's distro boot runs the removable-media
		// EFI program with its own UEFI (bootefi) and device tree.
		disk := sdCard(t, map[string][]byte{"EFI/BOOT/BOOTAA64.EFI": mustReadFile(t, plain)})
		out, _ := bootArm64(t, arm64UBoot, "", disk, "typed\n\x04")
		expect(t, out, -1, 0, "started by UEFI firmware: RAM from its memory map", passed, "gometal: exit status 3; powering off")
	})
	t.Run("uefi-dt", func(t *testing.T) {
		t.Parallel()
		disk := sdCard(t, map[string][]byte{"EFI/BOOT/BOOTAA64.EFI": mustReadFile(t, plain)})
		out, _ := bootArm64(t, edk2Arm64, "", disk, "typed\n\x04", "acpi=off")
		expect(t, out, -1, 0, "BdsDxe: starting", "started by UEFI firmware: RAM from its memory map", passed, "gometal: exit status 3; powering off")
	})
	t.Run("uefi-acpi", func(t *testing.T) {
		t.Parallel()
		// QEMU's default: EDK2 hands over ACPI tables only. There are no
		// virtio-mmio slots to find (only the DSDT's AML names them), so
		// no entropy source: getrandom blocks, with one line.
		img := buildArm64Image(t, filepath.Join(dir, "acpi.img"), []string{"-v"}, "2", "3", "no", "typed\n")
		disk := sdCard(t, map[string][]byte{"EFI/BOOT/BOOTAA64.EFI": mustReadFile(t, img)})
		out, _ := bootArm64(t, edk2Arm64, "", disk, "typed\n\x04")
		expect(t, out, -1, 0, "no device tree: the machine from ACPI tables (2 CPUs in the MADT, console from the SPCR)",
			"timer: the virtual timer's interrupt is INTID 27, level-triggered, from the GTDT",
			"PCIe ECAM at 0x4010000000", "gometal: no entropy source", passed, "gometal: exit status 3; powering off")
	})
	t.Run("uefi-acpi-virtio-pci", func(t *testing.T) {
		t.Parallel()
		// As a cloud VM: the devices are virtio-pci functions. The MCFG
		// gives the ECAM, EDK2 placed the BARs (64-bit ones at 512 GiB,
		// above the linear map), the DSDT's _PRT routes INTx: QEMU's
		// swizzle, device D's INTA at GSI 35 + D mod 4, the device tree's
		// lines too. progs/virtiopci reads and writes a file on the 9P
		// share (its senders sleep for replies: the interrupt must come)
		// and exchanges a line with the host over the NIC.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go serveUpper(ln)
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		img := filepath.Join(dir, "virtiopci.img")
		cmd := exec.Command(gometal, "build", "-o", img, "-arch", "arm64", "-v", "-kernel-args", "mount=gm0:/share",
			filepath.Join(modRoot, "tests", "progs", "virtiopci"), port)
		cmd.Env = gometalEnv()
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gometal build: %v\n%s", err, msg)
		}
		share := t.TempDir()
		writeFiles(t, share, map[string]string{"in.txt": "over 9p\n"})
		disk := sdCard(t, map[string][]byte{"EFI/BOOT/BOOTAA64.EFI": mustReadFile(t, img)})
		out, _ := bootArm64With(t, edk2Arm64, "", disk, "", []string{
			"-device", "virtio-rng-pci", "-netdev", "user,id=n0", "-device", "virtio-net-pci,netdev=n0,romfile=",
			"-fsdev", "local,id=fs0,path=" + share + ",security_model=none", "-device", "virtio-9p-pci,fsdev=fs0,mount_tag=gm0"})
		expect(t, out, -1, 0, "no device tree: the machine from ACPI tables",
			"00:01.0 1af4:1005: EntropySource, INTx pin 1 on line Some(36)",
			"00:02.0 1af4:1000: Network, INTx pin 1 on line Some(37)",
			"00:03.0 1af4:1009: _9P, INTx pin 1 on line Some(38)",
			"keyed from virtio-rng", "gometal: net: virtio-net 52:54:00:12:34:56",
			"PASS virtiopci", "gometal: exit status 0; powering off")
		if got := mustRead(t, filepath.Join(share, "out.txt")); got != "written by the guest\n" {
			t.Errorf("out.txt on the share: %q", got)
		}
	})
}

// TestBadImageArm64: damaged arm64 images under QEMU's -kernel and under
// UEFI, and loaders that start a good one where it cannot run: one line
// each and a power-off, never a silent hang. (An image for the other
// architecture is TestBadImage/cli-arm64: gometal run refuses it.)
func TestBadImageArm64(t *testing.T) {
	needArm64(t)
	dir := t.TempDir()
	goodPath := buildArm64Image(t, filepath.Join(dir, "good.img"), nil, "1", "0", "yes")
	good := mustReadFile(t, goodPath)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	truncated := write("truncated.img", good[:len(good)-50000])
	// A flip the boot path does not execute (in the last checked bytes,
	// the notes): the damaged kernel must get as far as its console to
	// say it (a flip in that code could hang it: docs/boards.md).
	corrupt := append([]byte(nil), good...)
	corrupt[binary.LittleEndian.Uint64(good[0x48:])-16] ^= 0x20
	corruptPath := write("corrupt.img", corrupt)
	const damagedCode = "gometal: the image is damaged (its code does not match its checksum)"
	t.Run("truncated", func(t *testing.T) {
		t.Parallel()
		out, _ := bootArm64(t, "", truncated, "", "")
		expect(t, out, -1, 0, "gometal: the image is damaged: its program does not match its checksum")
	})
	t.Run("corrupt", func(t *testing.T) {
		t.Parallel()
		out, _ := bootArm64(t, "", corruptPath, "", "")
		expect(t, out, -1, 0, damagedCode)
	})
	// Before the kernel has a device tree it says what is wrong on the
	// image's early console (QEMU virt's PL011 by default).
	t.Run("uboot-misaligned", func(t *testing.T) {
		t.Parallel()
		// booti puts the image text_offset past a 2 MiB boundary: 2 KiB
		// past one here, an address the kernel cannot run at.
		img := withTextOffset(t, goodPath, 0x200800)
		out, _ := bootArm64(t, arm64UBoot, "", sdCard(t, map[string][]byte{"app.img": img, "extlinux/extlinux.conf": []byte(extlinux)}), "")
		expect(t, out, -1, 0, "gometal: the kernel image must be loaded at a 4 KiB aligned address (it is at 0x40400800)", "gometal: powering off")
	})
	t.Run("no-device-tree", func(t *testing.T) {
		t.Parallel()
		// A loader that jumps to the image with no device tree in x0:
		// QEMU's generic loader (x0 = 0). U-Boot's go would be the board's
		// case (x0 = argc), but Debian's U-Boot 2023.01 hangs in its own
		// PL011 flush before it jumps (docs/boards.md).
		m := *machine.ARM64Virt
		m.Boot = machine.Boot{Name: "test", Load: machine.LoadKernel}
		out, _ := bootQEMU(t, qemu.Config{Machine: &m, SMP: 1, Memory: "256M", Extra: []string{
			"-device", "loader,file=" + goodPath + ",addr=0x40200000,force-raw=on", "-device", "loader,addr=0x40200000,cpu-num=0"}}, "")
		expect(t, out, -1, 0, "gometal: no device tree at the address the loader passed (x0 = 0x0)", "gometal: powering off")
	})
	t.Run("uefi-corrupt", func(t *testing.T) {
		t.Parallel()
		out, _ := bootArm64(t, edk2Arm64, "", sdCard(t, map[string][]byte{"EFI/BOOT/BOOTAA64.EFI": corrupt}), "", "acpi=off")
		expect(t, out, -1, 0, damagedCode)
	})
	// A user's own QEMU command lines that promise what they do not give:
	// one line each from the kernel, never a panic or a hang.
	plain := []string{"qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", "-nographic", "-kernel", goodPath}
	t.Run("semihosting-not-enabled", func(t *testing.T) {
		t.Parallel()
		out, status := bootArgv(t, append(plain, "-append", "semihosting"))
		expect(t, out, status, 0, "PASS board",
			"gometal: the kernel option `semihosting` was given, but QEMU was started without -semihosting: the exit status cannot reach the host; powering off")
	})
	t.Run("too-little-memory", func(t *testing.T) {
		t.Parallel()
		out, status := bootArgv(t, append(plain, "-m", "10M"))
		expect(t, out, status, 0, "gometal: too little memory:", "the kernel heap alone needs 4096 KiB in one range", "gometal: exit status 125; powering off")
	})
}
