package tests

// The arm64 port's boot tests: the core cases of TestBoot (one core and
// four, the exit status, signals and preemption, timers and the RTC, a
// fault turned into a Go panic) on QEMU's arm64 virt (Cortex-A72, GICv3),
// with the arm64 kernel ($GOMETAL_KERNEL_ARM64, else built from the
// checkout like the riscv64 one). The rest of TestBoot's cases run on
// riscv64 only for now (docs/porting.md, "arm64: what is tested").

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gometal.dev/gometal/internal/gobuild"
	"gometal.dev/gometal/internal/kernelimage"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// arm64Cases are the TestBoot cases (by name) that also boot on arm64 in
// `make test`; GOMETAL_TEST_ARM64=all boots every case there instead.
var arm64Cases = []string{"hello", "concurrency", "timers", "preempt", "nilderef", "exitcode-0", "exitcode-42", "openflags"}

func onArm64(name string) bool {
	return os.Getenv("GOMETAL_TEST_ARM64") == "all" || slices.Contains(arm64Cases, name)
}

func TestBootArm64(t *testing.T) {
	if _, err := qemu.Find("", machine.ARM64); err != nil {
		t.Skipf("%v (make deps installs qemu-system-arm)", err)
	}
	k, err := kernelimage.NewFor("arm64", nil).Find("")
	if err != nil {
		t.Fatalf("no arm64 kernel: %v", err)
	}
	if k, err = filepath.Abs(k); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(workDir, "progs-arm64") + string(filepath.Separator)
	var pkgs []string
	for _, c := range cases() {
		if onArm64(c.name) && !c.example && !slices.Contains(pkgs, "./tests/progs/"+c.prog) {
			pkgs = append(pkgs, "./tests/progs/"+c.prog)
		}
	}
	build := gobuild.Job{What: "the arm64 test programs", Env: machine.ARM64.BuildEnv(), Args: append([]string{"build", "-o", dir}, pkgs...)}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	if err := gobuild.RunAll(ctx, modRoot, []gobuild.Job{build}, nil); err != nil {
		t.Fatal(err)
	}
	target := bootTarget{prefix: "arm64/", progDir: dir, env: kernelimage.EnvFor("arm64"), kernel: k}
	t.Logf("kernel: %s", k)
	for _, c := range cases() {
		if !onArm64(c.name) || c.example {
			continue
		}
		for _, r := range c.runs() {
			if c.smp && r.cores != 1 && r.cores != 4 {
				continue
			}
			if c.smp && r.sched != policiesAt(r.cores)[0] {
				continue // one policy per core count: the port, not the policies, is under test
			}
			t.Run(c.name+"/"+r.name(), func(t *testing.T) {
				if c.skipEnv != "" && os.Getenv(c.skipEnv) != "" {
					t.Skipf("skipped: %s is set", c.skipEnv)
				}
				t.Parallel()
				bootSem <- struct{}{}
				defer func() { <-bootSem }()
				runBootOn(t, c, r, target)
			})
		}
	}
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
	if _, err := qemu.Find("", machine.ARM64); err != nil {
		t.Skipf("%v (make deps installs qemu-system-arm)", err)
	}
	k, err := kernelimage.NewFor("arm64", nil).Find("")
	if err != nil {
		t.Fatalf("no arm64 kernel: %v", err)
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "board")
	build := gobuild.Job{What: "board for arm64", Env: machine.ARM64.BuildEnv(), Args: []string{"build", "-o", prog, "./tests/progs/board"}}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	if err := gobuild.RunAll(ctx, modRoot, []gobuild.Job{build}, nil); err != nil {
		t.Fatal(err)
	}
	boardTxt := filepath.Join(dir, "board.txt")
	if err := os.WriteFile(boardTxt, []byte("board\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "app.img")
	argv := []string{"build", "-arch", "arm64", "-o", img, "-env", "BOARD=ok", "-add", boardTxt + ":/etc/board.txt", "-v", prog, "2", "3", "yes", "typed\n"}
	cmd := exec.Command(gometal, argv...)
	cmd.Env = append(os.Environ(), kernelimage.EnvFor("arm64")+"="+k)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gometal %s: %v\n%s", strings.Join(argv, " "), err, msg)
	}
	t.Run("qemu", func(t *testing.T) {
		t.Parallel()
		out, status := bootQEMU(t, qemu.Config{Machine: machine.ARM64Virt, SMP: 2, Memory: "256M", Kernel: img, Append: "semihosting"}, "typed\n\x04")
		expect(t, out, status, 3, "PASS board (NumCPU=2, exiting with 3)", "kernel and program image at 0x40200000")
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
