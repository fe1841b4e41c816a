// Package uioinit prepares Linux for a Go program that drives a PCI device
// through UIO when that program is Linux's /init (the UIO conformance test
// and the devices benchmark boot Debian's kernel that way): mount proc,
// sysfs and devtmpfs, load the modules packed under /modules (uio, then
// uio_pci_generic, as .ko.xz: finit_module decompresses them), bind the
// device to uio_pci_generic and wait for /dev/uio0. On gometal none of this
// is needed: Needed tells.
package uioinit

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Needed reports whether the program is PID 1 on a system without UIO
// devices yet (Linux just booted), so Linux must be called.
func Needed() bool {
	_, err := os.Stat("/sys/class/uio")
	return err != nil && os.Getpid() == 1
}

// Linux sets up UIO for the PCI device with the given ids ("1234 11e8",
// new_id's format) and returns the modules it loaded.
func Linux(ids string) ([]string, error) {
	mods, err := Prepare()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile("/sys/bus/pci/drivers/uio_pci_generic/new_id", []byte(ids), 0o200); err != nil {
		return nil, fmt.Errorf("new_id: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat("/dev/uio0"); err == nil {
			return mods, nil
		}
	}
	return nil, fmt.Errorf("no /dev/uio0 after binding %s", ids)
}

// Prepare mounts proc, sysfs and devtmpfs and loads the modules packed
// under /modules in name order; it returns them. The block benchmark uses
// it alone (virtio_blk, no UIO).
func Prepare() ([]string, error) {
	for _, m := range []struct{ src, dst, typ string }{{"proc", "/proc", "proc"}, {"sysfs", "/sys", "sysfs"}, {"devtmpfs", "/dev", "devtmpfs"}} {
		os.MkdirAll(m.dst, 0o755)
		if err := syscall.Mount(m.src, m.dst, m.typ, 0, ""); err != nil && err != syscall.EBUSY {
			return nil, fmt.Errorf("mount %s: %v", m.dst, err)
		}
	}
	mods, _ := filepath.Glob("/modules/*.ko*")
	sort.Strings(mods) // uio before uio_pci_generic
	for _, m := range mods {
		if err := loadModule(m); err != nil {
			return nil, err
		}
	}
	return mods, nil
}

func loadModule(path string) error {
	const sysFinitModule, compressedFile = 273, 4 // riscv64's generic table; MODULE_INIT_COMPRESSED_FILE
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	flags := uintptr(0)
	if strings.HasSuffix(path, ".xz") {
		flags = compressedFile
	}
	empty := []byte{0}
	if _, _, e := syscall.Syscall(sysFinitModule, f.Fd(), uintptr(unsafe.Pointer(&empty[0])), flags); e != 0 && e != syscall.EEXIST {
		return fmt.Errorf("finit_module %s: %v", path, e)
	}
	return nil
}

// PowerOff ends a Linux run (PID 1 must not exit: that panics the kernel).
func PowerOff() {
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
}
