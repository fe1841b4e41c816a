// Package devices is gometal's catalogue of devices a program may drive
// itself through UIO (`gometal run -device NAME`): for each, the QEMU
// arguments that add it to the virt machine and the kernel's `uio=` spec
// that hands it to the program as /dev/uioN. The kernel exposes only the
// devices named this way.
package devices

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
)

// Device is one entry of the catalogue.
type Device struct {
	Name    string
	Summary string
	// Param describes the value after NAME= ("" when the device takes none).
	Param string
	// qemu returns the QEMU arguments for instance n (ids must be unique)
	// with parameter p.
	qemu func(n int, p string) ([]string, error)
	// UIO is the kernel's uio= spec (kernel/core/src/uio/uiospec.rs).
	UIO string
	// QEMUDevice says in words what QEMU adds, for `gometal help devices`.
	QEMUDevice string
}

var catalogue = []Device{
	{
		Name: "edu", Summary: "QEMU's educational PCI device: registers, factorial, interrupts, DMA",
		QEMUDevice: "-device edu,dma_mask=0xffffffff (PCI 1234:11e8; DMA to all of RAM, not only 28 bits)",
		UIO:        "pci:1234:11e8",
		qemu: func(int, string) ([]string, error) {
			return []string{"-device", "edu,dma_mask=0xffffffff"}, nil
		},
	},
	{
		Name: "rtc-alarm", Summary: "riscv64: the virt machine's Goldfish RTC, with its alarm interrupt (arm64's virt machine has none)",
		QEMUDevice: "none: always on riscv64's virt machine (google,goldfish-rtc at 0x101000, PLIC 11)",
		UIO:        "dt:google,goldfish-rtc",
		qemu:       func(int, string) ([]string, error) { return nil, nil },
	},
	{
		Name: "serial", Summary: "a 16550 UART on PCI connected to a host TCP socket", Param: "tcp:HOST:PORT",
		QEMUDevice: "-chardev socket,server=on,wait=off -device pci-serial (PCI 1b36:0002)",
		UIO:        "pci:1b36:0002",
		qemu:       serialArgs,
	},
	{
		Name: "blk", Summary: "a virtio block device (modern virtio-pci) backed by a host image file", Param: "PATH",
		QEMUDevice: "-drive if=none,format=raw -device virtio-blk-pci,disable-legacy=on (PCI 1af4:1042)",
		UIO:        "pci:1af4:1042",
		qemu:       blkArgs,
	},
}

func serialArgs(n int, p string) ([]string, error) {
	addr, ok := strings.CutPrefix(p, "tcp:")
	host, port, err := net.SplitHostPort(addr)
	if !ok || err != nil || host == "" {
		return nil, fmt.Errorf("serial=%s: want serial=tcp:HOST:PORT", p)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return nil, fmt.Errorf("serial=%s: bad port %q", p, port)
	}
	id := fmt.Sprintf("uioserial%d", n)
	return []string{
		"-chardev", fmt.Sprintf("socket,id=%s,host=%s,port=%s,server=on,wait=off", id, host, port),
		"-device", "pci-serial,chardev=" + id,
	}, nil
}

func blkArgs(n int, p string) ([]string, error) {
	if p == "" || strings.Contains(p, ",") {
		return nil, fmt.Errorf("blk=%q: want blk=PATH (a path without commas)", p)
	}
	id := fmt.Sprintf("uioblk%d", n)
	return []string{
		"-drive", fmt.Sprintf("file=%s,if=none,format=raw,id=%s", p, id),
		"-device", "virtio-blk-pci,disable-legacy=on,drive=" + id,
	}, nil
}

// All is the catalogue, sorted by name.
func All() []Device {
	out := append([]Device(nil), catalogue...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Selection is what a list of -device values asks of QEMU and the kernel.
type Selection struct {
	QEMU   []string // QEMU arguments
	Kernel []string // kernel options (uio=...)
}

// Select parses -device values: NAME, NAME=PARAM, each optionally ending
// in @CPU (the CPU that takes the device's interrupts).
func Select(specs []string) (Selection, error) {
	var sel Selection
	for i, s := range specs {
		body, hart, err := splitHart(s)
		if err != nil {
			return Selection{}, err
		}
		name, param, hasParam := strings.Cut(body, "=")
		d, ok := lookup(name)
		if !ok {
			return Selection{}, fmt.Errorf("%q: unknown device (gometal help devices lists them)", name)
		}
		if hasParam != (d.Param != "") {
			if d.Param == "" {
				return Selection{}, fmt.Errorf("%s takes no parameter", name)
			}
			return Selection{}, fmt.Errorf("%s needs a parameter: %s=%s", name, name, d.Param)
		}
		args, err := d.qemu(i, param)
		if err != nil {
			return Selection{}, err
		}
		sel.QEMU = append(sel.QEMU, args...)
		sel.Kernel = append(sel.Kernel, "uio="+d.UIO+hart)
	}
	return sel, nil
}

// splitHart splits "spec@N" into spec and "@N" (kept as the kernel reads it).
func splitHart(s string) (string, string, error) {
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return s, "", nil
	}
	if _, err := strconv.ParseUint(s[i+1:], 10, 8); err != nil {
		return "", "", fmt.Errorf("%q: want @CPU with a CPU number", s)
	}
	return s[:i], s[i:], nil
}

func lookup(name string) (Device, bool) {
	for _, d := range catalogue {
		if d.Name == name {
			return d, true
		}
	}
	return Device{}, false
}
