package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"gometal.dev/gometal/uio"
)

// linuxSetup makes Linux, booted with this program as /init, look like
// gometal -device edu: sysfs, devtmpfs, uio + uio_pci_generic loaded from
// /modules (finit_module takes the .ko.xz as Debian ships them), the edu
// device bound, /dev/uio0 present.
func linuxSetup() error {
	for _, m := range []struct{ src, dst, typ string }{{"proc", "/proc", "proc"}, {"sysfs", "/sys", "sysfs"}, {"devtmpfs", "/dev", "devtmpfs"}} {
		os.MkdirAll(m.dst, 0o755)
		if err := syscall.Mount(m.src, m.dst, m.typ, 0, ""); err != nil && err != syscall.EBUSY {
			return fmt.Errorf("mount %s: %v", m.dst, err)
		}
	}
	mods, _ := filepath.Glob("/modules/*.ko*")
	sort.Strings(mods) // uio before uio_pci_generic
	for _, m := range mods {
		if err := loadModule(m); err != nil {
			return err
		}
	}
	if err := os.WriteFile("/sys/bus/pci/drivers/uio_pci_generic/new_id", []byte("1234 11e8"), 0o200); err != nil {
		return fmt.Errorf("new_id: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat("/dev/uio0"); err == nil {
			fmt.Printf("linux: loaded %s, edu bound to uio_pci_generic\n", strings.Join(mods, ", "))
			return nil
		}
	}
	return fmt.Errorf("no /dev/uio0 after binding")
}

func loadModule(path string) error {
	const sysFinitModule, compressed = 273, 4
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	flags := uintptr(0)
	if strings.HasSuffix(path, ".xz") {
		flags = compressed
	}
	empty := []byte{0}
	if _, _, e := syscall.Syscall(sysFinitModule, f.Fd(), uintptr(unsafe.Pointer(&empty[0])), flags); e != 0 && e != syscall.EEXIST {
		return fmt.Errorf("finit_module %s: %v", path, e)
	}
	return nil
}

// irqWrite is UIO's irqcontrol write, raw, to see what the system answers.
func irqWrite(d *uio.Device, v uint32) error {
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], v)
	_, err := syscall.Write(d.RawFd(), b[:])
	return err
}
