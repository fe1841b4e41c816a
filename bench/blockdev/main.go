// Command blockdev measures block reads from a virtio-blk disk: sequential
// reads in large requests and 4 KiB random reads at queue depth 1, in
// MB/s and IOPS, one BENCH line each. On gometal the disk is driven from
// Go through UIO (gometal.dev/gometal/uio/virtio, which serialises
// requests: one in flight, so queue depth 1 is all it has); on Linux, as
// /init, the program loads Linux's own virtio_blk module (packed under
// /modules) and reads /dev/vda with O_DIRECT in the same patterns, so the
// comparison is a Go user-space driver against Linux's in-kernel driver.
//
// The image is made by the host (internal/bench/blockdev.go): random
// bytes, with every 4 KiB block starting with its own index (8 bytes,
// little endian). The sequential pass hashes the whole disk and must match
// -sum (SHA-256 computed on the host); every random read checks its
// block's index, so a driver that reads nothing cannot report a figure.
//
//	blockdev -sum HEX [-seq 131072] [-rand 2000] [-passes 1]
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"syscall"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
	"gometal.dev/gometal/internal/uioinit"
	"gometal.dev/gometal/uio"
	"gometal.dev/gometal/uio/virtio"
)

// BlockSize is the random-read unit and the stride of the index stamps.
const BlockSize = 4096

func main() {
	sum := flag.String("sum", "", "SHA-256 of the whole image (hex), computed on the host")
	seq := flag.Int("seq", 128<<10, "sequential request size in bytes")
	nrand := flag.Int("rand", 2000, "4 KiB random reads")
	passes := flag.Int("passes", 1, "sequential passes over the whole disk")
	flag.Parse()
	disk, driver, err := open()
	if err != nil {
		guest.Fail("blockdev", err)
	}
	if *seq%BlockSize != 0 || *seq <= 0 || disk.size%int64(*seq) != 0 {
		guest.Fail("blockdev", fmt.Errorf("-seq %d must be a multiple of %d dividing the disk size %d", *seq, BlockSize, disk.size))
	}
	buf := aligned(*seq)
	for p := range *passes {
		// Only the reads are timed: hashing on an emulated CPU is slower
		// than the disk and would otherwise be most of the figure.
		h := sha256.New()
		var el time.Duration
		for off := int64(0); off < disk.size; off += int64(*seq) {
			start := time.Now()
			if _, err := disk.r.ReadAt(buf, off); err != nil {
				guest.Fail("blockdev", fmt.Errorf("sequential read at %d: %w", off, err))
			}
			el += time.Since(start)
			h.Write(buf)
		}
		got := hex.EncodeToString(h.Sum(nil))
		if got != *sum {
			guest.Fail("blockdev", fmt.Errorf("pass %d: the disk's SHA-256 is %s, the host's %s", p, got, *sum))
		}
		guest.Report("blockdev", "what", "seq", "driver", driver, "cpus", runtime.NumCPU(), "req", *seq,
			"bytes", disk.size, "mb_per_s", float64(disk.size)/1e6/el.Seconds(),
			"iops", float64(disk.size/int64(*seq))/el.Seconds(), "verified", "sha256")
	}
	blocks := disk.size / BlockSize
	rng := rand.New(rand.NewPCG(1, 2))
	small := buf[:BlockSize]
	start := time.Now()
	for range *nrand {
		b := rng.Int64N(blocks)
		if _, err := disk.r.ReadAt(small, b*BlockSize); err != nil {
			guest.Fail("blockdev", fmt.Errorf("random read of block %d: %w", b, err))
		}
		if got := binary.LittleEndian.Uint64(small); got != uint64(b) {
			guest.Fail("blockdev", fmt.Errorf("random read of block %d returned block %d's data", b, got))
		}
	}
	el := time.Since(start)
	guest.Report("blockdev", "what", "rand4k", "driver", driver, "cpus", runtime.NumCPU(), "qd", 1, "n", *nrand,
		"iops", float64(*nrand)/el.Seconds(), "mb_per_s", float64(*nrand*BlockSize)/1e6/el.Seconds(), "verified", "index")
	fmt.Printf("blockdev: %d bytes verified (sha256 %s...), %d random blocks verified\n", disk.size*int64(*passes), (*sum)[:min(12, len(*sum))], *nrand)
	guest.PowerOff()
}

// disk is what both kernels' paths give: positioned reads and a size.
type disk struct {
	r    io.ReaderAt
	size int64
}

// open finds the disk: Linux's /dev/vda (after loading virtio_blk) when
// the program is Linux's /init, else the virtio-blk PCI device through UIO.
func open() (disk, string, error) {
	if uioinit.Needed() {
		if _, err := uioinit.Prepare(); err != nil {
			return disk{}, "", err
		}
		return openLinux("/dev/vda")
	}
	dev, err := uio.Open("pci:1af4:1042")
	if err != nil {
		return disk{}, "", fmt.Errorf("%v (boot with -device blk=IMAGE)", err)
	}
	b, err := virtio.OpenBlk(dev)
	if err != nil {
		return disk{}, "", err
	}
	return disk{r: b, size: b.Size()}, "go-uio", nil
}

// openLinux waits for the kernel driver's device node and opens it with
// O_DIRECT, so reads go to the device, not the page cache.
func openLinux(path string) (disk, string, error) {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return disk{}, "", fmt.Errorf("no %s after loading virtio_blk", path)
		}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		return disk{}, "", err
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return disk{}, "", err
	}
	return disk{r: f, size: size}, "linux-virtio_blk", nil
}

// aligned returns a page-aligned buffer (O_DIRECT needs one); anonymous
// mmap gives page alignment on both kernels.
func aligned(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		guest.Fail("blockdev", fmt.Errorf("buffer: %w", err))
	}
	return b
}
