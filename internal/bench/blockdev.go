package bench

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"gometal.dev/gometal/internal/devices"
	"gometal.dev/gometal/internal/initramfs"
	"gometal.dev/gometal/internal/linuxkernel"
)

func init() {
	register(&benchmark{name: "blockdev", title: "Devices through UIO: block reads from virtio-blk",
		plan: func(s *Session) int { return s.O.Runs * 2 * len(s.Kinds) }, run: runBlockdev})
}

// virtioBlkModule is Linux's virtio-blk driver (a module in Debian's
// kernel; the virtio-pci transport is built in).
const virtioBlkModule = "kernel/drivers/block/virtio_blk.ko"

// WriteBlockImage writes size bytes (a multiple of 4096) of seeded random
// data to path, each 4 KiB block starting with its index (8 bytes, little
// endian), and returns the file's SHA-256 in hex: what bench/blockdev
// checks its reads against.
func WriteBlockImage(path string, size int64, seed uint64) (string, error) {
	if size <= 0 || size%4096 != 0 {
		return "", fmt.Errorf("block image size %d: want a positive multiple of 4096", size)
	}
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	h := sha256.New()
	block := make([]byte, 4096)
	for i := int64(0); i < size/4096; i++ {
		for j := 8; j < len(block); j += 8 {
			binary.LittleEndian.PutUint64(block[j:], rng.Uint64())
		}
		binary.LittleEndian.PutUint64(block, uint64(i))
		h.Write(block)
		if _, err := f.Write(block); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), f.Close()
}

// runBlockdev boots bench/blockdev with a virtio-blk disk on 1 and N
// harts: on gometal the Go driver over UIO reads it, on Linux its own
// virtio_blk driver (loaded by the program as /init) with O_DIRECT.
func runBlockdev(s *Session) Section {
	size, args := int64(64<<20), []string{"-seq", "131072", "-rand", "2000"}
	if s.O.Quick {
		size, args = 16<<20, []string{"-seq", "131072", "-rand", "500"}
	}
	img := filepath.Join(s.M.Dir, "blockdev.img")
	sum, err := WriteBlockImage(img, size, 10)
	if err != nil {
		return notMeasured("the test image", err)
	}
	defer os.Remove(img)
	sel, err := devices.Select([]string{"blk=" + img})
	if err != nil {
		return notMeasured("the blk device", err)
	}
	kinds, linuxNote := []Kind{Gometal}, ""
	var extras []initramfs.Mapping
	if len(s.Kinds) > 1 && s.LinuxK != nil {
		mods, err := linuxkernel.Modules(s.O.LinuxDir, s.LinuxK, []string{virtioBlkModule}, s.O.Log)
		if err != nil {
			linuxNote = fmt.Sprintf("\nLinux: not measured: %v\n", err)
		} else {
			kinds = s.Kinds
			extras = append(extras, initramfs.Mapping{Host: mods[0], Guest: "/modules/" + filepath.Base(mods[0])})
			linuxNote = fmt.Sprintf("\nLinux loads its own driver, %s (from %s), and reads /dev/vda with O_DIRECT:\nthis compares a Go user-space driver on gometal with Linux's in-kernel driver.\n",
				filepath.Base(mods[0]), s.LinuxK.Package)
		}
	}
	prog, err := s.M.BuildGoWith("blockdev", "./bench/blockdev", extras)
	if err != nil {
		return notMeasured("building bench/blockdev failed", err)
	}
	args = append(args, "-sum", sum)
	sm, harts := deviceRuns(s, sel, kinds, prog, args, []string{"mb_per_s", "iops"},
		func(res map[string]any) string { return Str(res, "what") })
	body := fmt.Sprintf("bench/blockdev (`%s -sum SHA256`) reads a %d MiB image of random data\n(`-device blk=IMAGE`, virtio-blk-pci, modern): whole-disk sequential reads in\n128 KiB requests (the Go driver splits them into 64 KiB transfers), checked\nagainst the host's SHA-256, and 4 KiB random reads at queue depth 1, each checked\nagainst the block index stamped in it. Only reads are timed. Medians of %d run(s).\nOn gometal the Go driver (gometal.dev/gometal/uio/virtio) runs over UIO and keeps\none request in flight.\n%s\n",
		strings.Join(args[:len(args)-2], " "), size>>20, s.O.Runs, linuxNote)
	header := []string{"kernel", "driver", "harts", "seq MB/s", "seq req/s", "4K random IOPS (QD1)", "4K random MB/s"}
	var rows [][]string
	for _, k := range kinds {
		driver := "Go, UIO"
		if k == Linux {
			driver = "virtio_blk, O_DIRECT"
		}
		for _, c := range harts {
			p := fmt.Sprintf("%s/c%d/", k, c)
			rows = append(rows, []string{string(k), driver, fmt.Sprint(c),
				sm.cell(p+"seq/mb_per_s", "%.1f"), sm.cell(p+"seq/iops", "%.0f"),
				sm.cell(p+"rand4k/iops", "%.0f"), sm.cell(p+"rand4k/mb_per_s", "%.2f")})
		}
	}
	return Section{Body: body + table(header, rows)}
}
