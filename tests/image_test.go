package tests

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gometal.dev/gometal/internal/bootimage"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// TestImage boots the one file `gometal build` writes the ways real
// machines start a kernel, with no gometal in between, and checks the
// program's output and exit status each way (tests/progs/board):
//
//   - qemu: qemu-system-riscv64 -M virt -kernel app.img, the serial
//     console as the program's stdin and stdout;
//   - uboot: U-Boot (Debian's u-boot-qemu, S-mode under OpenSBI) finds
//     extlinux/extlinux.conf on an SD-card-like disk and starts the image
//     with booti, as a VisionFive 2 or Milk-V board does; and again with
//     the header asking booti to put the image 38 MiB into RAM (the kernel
//     runs wherever it is loaded);
//   - sifive_u: QEMU's HiFive Unleashed: the E51 monitor hart without an
//     MMU, four U54s, the SiFive UART, no virtio and no entropy source, no
//     power-off device (the image reboots, QEMU -no-reboot exits);
//   - documented: every riscv64 QEMU command line README.md,
//     docs/boards.md and gometal build -h give, exactly as written
//     (imagedoc_test.go).
//
// TestBadImage covers the images and loaders that cannot work.
func TestImage(t *testing.T) {
	if riscv64.err != nil {
		t.Skip("no QEMU or kernel (TestBoot reports it)")
	}
	dir := t.TempDir()
	plain := buildImage(t, filepath.Join(dir, "plain.img"), []string{"-v"}, "2", "3", "yes", "typed\n")
	t.Run("qemu", func(t *testing.T) {
		t.Parallel()
		out, status := bootQEMU(t, qemu.Config{SMP: 2, Memory: "256M", Kernel: plain}, "typed\n\x04")
		expect(t, out, status, 3, "PASS board (NumCPU=2, exiting with 3)", "random generator (ChaCha20) keyed from rng-seed")
	})
	t.Run("uboot", func(t *testing.T) {
		t.Parallel()
		out, status := bootUBoot(t, sdCard(t, map[string][]byte{"app.img": mustReadFile(t, plain), "extlinux/extlinux.conf": []byte(extlinux)}), "typed\n\x04")
		expect(t, out, status, 3, "Starting kernel", "PASS board (NumCPU=2, exiting with 3)", "kernel and program image at 0x80200000")
	})
	t.Run("uboot-relocated", func(t *testing.T) {
		t.Parallel()
		img := withTextOffset(t, plain, 0x2600000)
		out, status := bootUBoot(t, sdCard(t, map[string][]byte{"app.img": img, "extlinux/extlinux.conf": []byte(extlinux)}), "typed\n\x04")
		expect(t, out, status, 3, "Moving Image from 0x84000000 to 0x82600000", "kernel and program image at 0x82600000", "PASS board")
	})
	t.Run("documented", func(t *testing.T) {
		t.Parallel()
		bootDocumented(t, riscv64)
	})
	t.Run("sifive_u", func(t *testing.T) {
		t.Parallel()
		img := buildImage(t, filepath.Join(dir, "sifive.img"), []string{"-v", "-on-exit", "reboot"}, "4", "3", "no", "typed\n")
		out, status := bootQEMU(t, qemu.Config{Machine: machine.RISCV64SifiveU, SMP: 5, Memory: "1G", Kernel: img}, "typed\n\x04")
		// No device carries the status to QEMU (a board): qemu.Run takes
		// it from the kernel's last console line.
		expect(t, out, status, 3, "4 of 4 CPUs online", "PASS board (NumCPU=4, exiting with 3)",
			"gometal: exit status 3; rebooting", "no driver for the network device ethernet@10090000",
			"gometal: no entropy source")
	})
}

// extlinux is the boot menu U-Boot's distro boot reads from the disk:
// the image alone, no initrd, no device tree (U-Boot passes its own).
const extlinux = "default gometal\nlabel gometal\n    kernel /app.img\n"

// TestBadImage: a damaged image, one the loader puts at an address the
// kernel cannot run at, a loader that passes no device tree, and images
// the CLI refuses: one line each, never a silent hang.
func TestBadImage(t *testing.T) {
	if riscv64.err != nil {
		t.Skip("no QEMU or kernel (TestBoot reports it)")
	}
	dir := t.TempDir()
	good := buildImage(t, filepath.Join(dir, "good.img"), nil, "1", "0", "yes")
	data := mustReadFile(t, good)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	truncated := write("truncated.img", data[:len(data)-50000])
	corrupt := append([]byte(nil), data...)
	corrupt[0x3000] ^= 0x20
	corruptPath := write("corrupt.img", corrupt)
	// An Image header with neither architecture's magic: not an image to gometal run.
	arm := append([]byte(nil), data...) // riscv64 code under arm64's magic
	copy(arm[0x38:], "ARM\x64")
	armPath := write("arm64.img", arm)
	alien := append([]byte(nil), data...)
	copy(alien[0x38:], "MIPS")
	alienPath := write("alien.img", alien)

	t.Run("truncated", func(t *testing.T) {
		t.Parallel()
		out, status := bootQEMU(t, qemu.Config{SMP: 1, Kernel: truncated}, "")
		expect(t, out, status, 125, "gometal: the image is damaged: its program does not match its checksum")
	})
	t.Run("corrupt", func(t *testing.T) {
		t.Parallel()
		out, _ := bootQEMU(t, qemu.Config{SMP: 1, Kernel: corruptPath}, "")
		expect(t, out, -1, 0, "gometal: the image is damaged (its code does not match its checksum)")
	})
	t.Run("misaligned", func(t *testing.T) {
		t.Parallel()
		img := withTextOffset(t, good, 0x201000)
		out, _ := bootUBoot(t, sdCard(t, map[string][]byte{"app.img": img, "extlinux/extlinux.conf": []byte(extlinux)}), "")
		expect(t, out, -1, 0, "gometal: the kernel image must be loaded at a 2 MiB aligned address")
	})
	t.Run("no-device-tree", func(t *testing.T) {
		t.Parallel()
		// U-Boot's go command jumps to the image with argc and argv, as
		// for a standalone program: no device tree.
		script := ubootScript("load virtio 0:1 0x84000000 app.img\ngo 0x84000000\n")
		out, _ := bootUBoot(t, sdCard(t, map[string][]byte{"app.img": data, "boot.scr": script}), "")
		expect(t, out, -1, 0, "gometal: no device tree at the address the loader passed")
	})
	for _, c := range []struct{ name, img, want string }{
		{"cli-truncated", truncated, "truncated"},
		{"cli-corrupt", corruptPath, "damaged: the kernel's code"},
		{"cli-arm64", armPath, "its header says arm64, but its first instruction is not arm64 code"},
		{"cli-alien", alienPath, "not an ELF executable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(gometal, "run", c.img)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			status, _ := exitStatus(err)
			if status != 2 || !strings.Contains(out.String(), c.want) || strings.Count(strings.TrimSpace(out.String()), "\n") != 0 {
				t.Errorf("gometal run %s: status %d, output %q; want 2 and one line with %q", c.img, status, out.String(), c.want)
			}
		})
	}
}

// TestBuildArch: gometal build takes the architecture by the same rule as
// run: a binary's from its ELF (no -arch), a package's from $GOARCH. The
// image's header says which; the documented boots (imagedoc_test.go) run
// images made from binaries without -arch.
func TestBuildArch(t *testing.T) {
	forArches(t, func(t *testing.T, a *arch) {
		dir := t.TempDir()
		for _, c := range []struct {
			name string
			env  []string
			prog string
		}{
			{"binary", nil, a.prog("exitcode")},
			{"package-goarch", []string{"GOARCH=" + a.name}, filepath.Join(modRoot, "tests", "progs", "exitcode")},
		} {
			img := filepath.Join(dir, c.name+".img")
			cmd := exec.Command(gometal, "build", "-o", img, c.prog, "3")
			cmd.Env = append(gometalEnv(), c.env...)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: gometal build: %v\n%s", c.name, err, msg)
			}
			h, err := bootimage.ReadHeader(mustReadFile(t, img))
			if err != nil || h.Arch != a.name {
				t.Errorf("%s: the image is for %q (%v), want %s", c.name, h.Arch, err, a.name)
			}
		}
	})
}

// buildImage runs gometal build for tests/progs/board with its arguments;
// the image sets BOARD=ok and adds /etc/board.txt, as board expects.
func buildImage(t *testing.T, out string, flags []string, args ...string) string {
	t.Helper()
	board := filepath.Join(t.TempDir(), "board.txt")
	if err := os.WriteFile(board, []byte("board\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := append([]string{"build", "-o", out, "-env", "BOARD=ok", "-add", board + ":/etc/board.txt"}, flags...)
	argv = append(append(argv, riscv64.prog("board")), args...)
	cmd := exec.Command(gometal, argv...)
	cmd.Env = gometalEnv()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gometal %s: %v\n%s", strings.Join(argv, " "), err, msg)
	}
	return out
}

// bootQEMU boots cfg (virt unless it says otherwise) and returns the
// console and QEMU's exit status. stdin is typed on the serial console
// once the program says it reads it: typed earlier, it would reach the
// firmware (OpenSBI empties the UART as it starts, U-Boot takes a key as
// "stop autoboot"), as on a board.
func bootQEMU(t *testing.T, cfg qemu.Config, stdin string) (string, int) {
	t.Helper()
	if cfg.Machine == nil {
		cfg.Machine = machine.RISCV64Virt
	}
	bin, err := qemu.Find("", cfg.Machine.Arch)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Binary = bin
	bootSem <- struct{}{}
	defer func() { <-bootSem }()
	in, typist, err := os.Pipe() // QEMU inherits in: no copying goroutine to wait for
	if err != nil {
		t.Fatal(err)
	}
	defer typist.Close()
	out := &typeAfter{marker: "board: reading stdin", text: stdin, to: typist}
	res, err := qemu.Run(cfg, qemu.Stdio{Stdin: in, Stdout: out, Stderr: out}, qemu.RunOptions{Timeout: guestTimeout})
	in.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.TimedOut {
		t.Fatalf("timed out after %v (a silent hang):\n%s", guestTimeout, tail(out.String(), 40))
	}
	return out.String(), res.ExitCode
}

// typeAfter collects the console and, when it first shows marker, writes
// text to the console's input.
type typeAfter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	text   string
	to     io.Writer
	typed  bool
}

func (w *typeAfter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.typed && w.text != "" && strings.Contains(w.buf.String(), w.marker) {
		w.typed = true
		go w.to.Write([]byte(w.text)) // QEMU reads it while we return
	}
	return len(p), nil
}

func (w *typeAfter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// uboot is Debian's U-Boot for QEMU's virt machine in S-mode (u-boot-qemu).
const uboot = "/usr/lib/u-boot/qemu-riscv64_smode/uboot.elf"

// bootUBoot starts U-Boot under QEMU's OpenSBI with disk as its virtio
// disk: its default boot command (distro boot) scans the disk for
// extlinux/extlinux.conf and boot.scr, with no one at the keyboard.
func bootUBoot(t *testing.T, disk, stdin string) (string, int) {
	t.Helper()
	if _, err := os.Stat(uboot); err != nil {
		t.Fatalf("U-Boot for QEMU is not installed (%v): make deps installs u-boot-qemu", err)
	}
	return bootQEMU(t, qemu.Config{SMP: 2, Memory: "256M", Kernel: uboot,
		Extra: []string{"-drive", "file=" + disk + ",format=raw,if=virtio"}}, stdin)
}

// sdCard makes a disk image laid out like a board's SD card: an MBR
// partition table with one bootable FAT32 partition at 1 MiB holding files.
func sdCard(t *testing.T, files map[string][]byte) string {
	t.Helper()
	for _, tool := range []string{"mkfs.fat", "mmd", "mcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not installed: make deps installs dosfstools and mtools", tool)
		}
	}
	dir := t.TempDir()
	fat := filepath.Join(dir, "fat.img")
	mustRun(t, "mkfs.fat", "-F", "32", "-C", fat, "40960")
	for name, data := range files {
		src := filepath.Join(dir, filepath.Base(name))
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(filepath.Dir(name), "/")
		for i := range parts { // each folder above name, outermost first
			if d := strings.Join(parts[:i+1], "/"); d != "." {
				exec.Command("mmd", "-i", fat, "::"+d).Run() // may exist already
			}
		}
		mustRun(t, "mcopy", "-i", fat, src, "::"+name)
	}
	part := mustReadFile(t, fat)
	const start = 2048 // sectors: 1 MiB
	mbr := make([]byte, start*512)
	entry := mbr[446:462]
	entry[0] = 0x80                            // bootable
	copy(entry[1:4], []byte{0xfe, 0xff, 0xff}) // CHS: use the LBA fields
	entry[4] = 0x0c                            // FAT32 (LBA)
	copy(entry[5:8], []byte{0xfe, 0xff, 0xff})
	binary.LittleEndian.PutUint32(entry[8:], start)
	binary.LittleEndian.PutUint32(entry[12:], uint32(len(part)/512))
	mbr[510], mbr[511] = 0x55, 0xaa
	disk := filepath.Join(dir, "sd.img")
	if err := os.WriteFile(disk, append(mbr, part...), 0o644); err != nil {
		t.Fatal(err)
	}
	return disk
}

// ubootScript wraps a U-Boot command script as a legacy image of type
// "script" (what mkimage -T script writes): a 64-byte big-endian header
// with CRC-32s, then the script's length, a zero, and the script.
func ubootScript(script string) []byte {
	be := binary.BigEndian
	data := be.AppendUint32(nil, uint32(len(script)))
	data = be.AppendUint32(data, 0)
	data = append(data, script...)
	h := make([]byte, 64)
	be.PutUint32(h[0:], 0x27051956) // magic
	be.PutUint32(h[12:], uint32(len(data)))
	be.PutUint32(h[24:], crc32.ChecksumIEEE(data))
	h[28], h[29], h[30], h[31] = 5, 26, 6, 0 // Linux, RISC-V, script, uncompressed
	copy(h[32:], "gometal test")
	be.PutUint32(h[4:], crc32.ChecksumIEEE(h))
	return append(h, data...)
}

// withTextOffset is a copy of the image whose header asks booti to put it
// `offset` bytes into RAM (the header is not covered by the checksums).
func withTextOffset(t *testing.T, path string, offset uint64) []byte {
	img := mustReadFile(t, path)
	binary.LittleEndian.PutUint64(img[8:], offset)
	return img
}

// expect checks the console for each line fragment and QEMU's exit
// status against want (a status of -1 is not checked: a machine the
// kernel shuts down through the firmware exits 0 whatever it asked).
func expect(t *testing.T, out string, status, want int, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(out, l) {
			t.Errorf("console lacks %q", l)
		}
	}
	if status >= 0 && status != want {
		t.Errorf("exit status %d, want %d", status, want)
	}
	if t.Failed() {
		t.Logf("console:\n%s", tail(out, 60))
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
