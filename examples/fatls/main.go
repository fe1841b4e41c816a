// Command fatls lists a FAT32 disk and writes a file to it, with the disk
// driven from Go: a virtio-blk driver (split virtqueues, in
// gometal.dev/gometal/uio/virtio) over UIO, and a small FAT32 reader and
// writer (./fat32). Run it with
//
//	mkfs.fat -F 32 -C fat.img 40960 && mcopy -i fat.img README.md ::
//	gometal run -disk fat.img ./examples/fatls [NAME.EXT [TEXT]]
//	mtype -i fat.img ::GOMETAL.TXT
package main

import (
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"gometal.dev/gometal/examples/fatls/fat32"
	"gometal.dev/gometal/uio"
	"gometal.dev/gometal/uio/virtio"
)

func main() {
	name, text := "GOMETAL.TXT", "written by Go on gometal\n"
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	if len(os.Args) > 2 {
		text = os.Args[2] + "\n"
	}
	dev, err := uio.Open("pci:1af4:1042")
	if err != nil {
		log.Fatalf("fatls: %v (run with: gometal run -disk IMAGE)", err)
	}
	blk, err := virtio.OpenBlk(dev)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("virtio-blk at /dev/uio%d: %d sectors (%d MiB)\n", dev.Index, blk.Sectors, blk.Size()>>20)
	fs, err := fat32.Open(blk)
	if err != nil {
		log.Fatal(err)
	}
	list(fs)
	start := time.Now()
	if err := fs.Create(name, []byte(text)); err != nil {
		log.Fatal(err)
	}
	back, err := fs.ReadFile(name)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("fatls: wrote %s (%d bytes) in %v, read back equal=%v\n", name, len(text), time.Since(start).Round(time.Microsecond), string(back) == text)
}

func list(fs *fat32.FS) {
	entries, err := fs.ReadDir(0)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		kind := "file"
		if e.Dir {
			kind = "dir "
		}
		line := ""
		if !e.Dir && e.Size < 4096 {
			if b, err := fs.ReadFile(e.Name); err == nil {
				line, _, _ = strings.Cut(string(b), "\n")
				line = fmt.Sprintf("  %q", line)
			}
		}
		fmt.Printf("%s %8d  %s%s\n", kind, e.Size, e.Name, line)
	}
}
