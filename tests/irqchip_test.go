package tests

// A machine whose interrupt controller gometal has no driver for: the
// kernel chooses the controller's driver by its device-tree compatible
// (kernel/src/drivers/irqchip), and a compatible no driver serves stops
// the boot with one line naming it and status 125, never a hang. The tree
// is QEMU's own, dumped and passed back with -dtb, which QEMU edits again
// and so leaves FDT_NOP tokens in (core's boot/fdtnop.rs): the kernel
// must read such a tree too.

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

func TestUnknownInterruptController(t *testing.T) {
	t.Run("riscv64", func(t *testing.T) {
		t.Parallel()
		if riscv64.err != nil {
			t.Skip("no QEMU or kernel (TestBoot reports it)")
		}
		dir := t.TempDir()
		img := buildImage(t, filepath.Join(dir, "good.img"), nil, "1", "0", "yes")
		cfg := qemu.Config{Machine: machine.RISCV64Virt, SMP: 1, Kernel: img}
		dtb := foreignController(t, cfg, dir, map[string]string{
			"sifive,plic-1.0.0": "acmeco,intc-9.9.9",
			"riscv,plic0":       "acmeco,ic00",
		})
		cfg.Extra = []string{"-dtb", dtb}
		out, status := bootQEMU(t, cfg, "")
		expect(t, out, status, 125,
			"gometal: no driver for the interrupt controller plic@c000000 (acmeco,intc-9.9.9, acmeco,ic00): devices and timers cannot interrupt; cannot boot")
	})
	t.Run("arm64", func(t *testing.T) {
		t.Parallel()
		needArm64(t)
		dir := t.TempDir()
		img := buildArm64Image(t, filepath.Join(dir, "good.img"), nil, "1", "0", "yes")
		cfg := qemu.Config{Machine: machine.ARM64Virt, SMP: 2, Memory: "512M", Kernel: img}
		dtb := foreignController(t, cfg, dir, map[string]string{"arm,gic-v3": "acme,ic-v3"})
		cfg.Extra = []string{"-dtb", dtb}
		// An image QEMU boots by itself: the status is the console's
		// last line (semihosting is the host's to enable).
		out, _ := bootQEMU(t, cfg, "")
		expect(t, out, -1, 0,
			"gometal: no driver for the interrupt controller intc@8000000 (acme,ic-v3): devices and timers cannot interrupt; cannot boot",
			"gometal: exit status 125; powering off")
	})
}

// foreignController dumps the device tree QEMU builds for cfg's machine and
// renames the interrupt controller's compatible strings (each to one of
// the same length, so the blob's layout stays valid).
func foreignController(t *testing.T, cfg qemu.Config, dir string, rename map[string]string) string {
	t.Helper()
	dumped := filepath.Join(dir, "machine.dtb")
	cfg.Extra = []string{"-machine", "dumpdtb=" + dumped}
	bootQEMU(t, cfg, "")
	blob := mustReadFile(t, dumped)
	for from, to := range rename {
		if len(from) != len(to) {
			t.Fatalf("%q and %q differ in length", from, to)
		}
		if !bytes.Contains(blob, []byte(from+"\x00")) {
			t.Fatalf("the dumped device tree has no %q", from)
		}
		blob = bytes.ReplaceAll(blob, []byte(from+"\x00"), []byte(to+"\x00"))
	}
	out := filepath.Join(dir, "foreign.dtb")
	if err := os.WriteFile(out, blob, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
