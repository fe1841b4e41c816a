package bootimage

// The arm64 kernel's early console: the UART it writes to before it has
// read the device tree, with the MMU off, when it cannot go on (a load
// address that is not 4 KiB aligned, a loader that passed no device tree,
// as U-Boot's go does). Nothing else names a UART that early (arm64 has no
// firmware console), so the image carries one, chosen at build time: the
// counterpart of Linux's earlycon= option, spelled the same way. The
// record lies at the start of the kernel's code (entry.S: "GMEARLYC",
// kind, address), under the code checksum.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// EarlyConsole is a UART the kernel can write to with the MMU off.
type EarlyConsole struct {
	Kind EarlyConsoleKind
	Addr uint64
}

// EarlyConsoleKind is the UART's register interface (entry.S's numbers).
type EarlyConsoleKind uint64

const (
	EarlyConsoleNone     EarlyConsoleKind = 0
	EarlyConsolePL011    EarlyConsoleKind = 1 // Arm PL011 (QEMU virt, Raspberry Pi UART0)
	EarlyConsole8250     EarlyConsoleKind = 2 // 16550, 8-bit registers 1 byte apart
	EarlyConsole8250MMIO EarlyConsoleKind = 3 // 16550, 32-bit registers 4 bytes apart
)

// QEMUVirtEarlyConsole is the arm64 kernel's own default: QEMU virt's PL011.
var QEMUVirtEarlyConsole = EarlyConsole{EarlyConsolePL011, 0x09000000}

const (
	offEarlyConsole = 0x1000 // the first bytes of the arm64 kernel's code
	earlyConsoleLen = 32
)

var earlyConsoleMagic = []byte("GMEARLYC")

// ParseEarlyConsole reads Linux's earlycon= syntax for the UARTs the
// kernel drives: "pl011,ADDR" (or "pl011,mmio32,ADDR"),
// "uart8250,mmio,ADDR", "uart8250,mmio32,ADDR" (also "uart" and "ns16550a"
// for uart8250), or "none".
func ParseEarlyConsole(s string) (EarlyConsole, error) {
	if s == "none" {
		return EarlyConsole{}, nil
	}
	parts := strings.Split(s, ",")
	bad := fmt.Errorf("%q: want none, pl011,ADDRESS, uart8250,mmio,ADDRESS or uart8250,mmio32,ADDRESS", s)
	if len(parts) < 2 || len(parts) > 3 {
		return EarlyConsole{}, bad
	}
	addr, err := strconv.ParseUint(parts[len(parts)-1], 0, 64)
	if err != nil || addr == 0 || addr%4 != 0 {
		return EarlyConsole{}, bad
	}
	iotype := ""
	if len(parts) == 3 {
		iotype = parts[1]
	}
	switch parts[0] {
	case "pl011":
		if iotype != "" && iotype != "mmio32" {
			return EarlyConsole{}, bad
		}
		return EarlyConsole{EarlyConsolePL011, addr}, nil
	case "uart8250", "uart", "ns16550", "ns16550a":
		switch iotype {
		case "", "mmio":
			return EarlyConsole{EarlyConsole8250, addr}, nil
		case "mmio32":
			return EarlyConsole{EarlyConsole8250MMIO, addr}, nil
		}
	}
	return EarlyConsole{}, bad
}

// String is the earlycon= spelling.
func (c EarlyConsole) String() string {
	switch c.Kind {
	case EarlyConsolePL011:
		return fmt.Sprintf("pl011,%#x", c.Addr)
	case EarlyConsole8250:
		return fmt.Sprintf("uart8250,mmio,%#x", c.Addr)
	case EarlyConsole8250MMIO:
		return fmt.Sprintf("uart8250,mmio32,%#x", c.Addr)
	}
	return "none"
}

// SetEarlyConsole writes c into an arm64 gometal image's early-console
// record and stamps the code checksum again.
func SetEarlyConsole(img []byte, c EarlyConsole) error {
	h, err := ReadHeader(img)
	if err != nil {
		return err
	}
	if h.Arch != "arm64" {
		return fmt.Errorf("an early console is for arm64 images (a %s kernel prints through its firmware)", h.Arch)
	}
	if !h.Gometal || len(img) < offEarlyConsole+earlyConsoleLen || !bytes.Equal(img[offEarlyConsole:offEarlyConsole+8], earlyConsoleMagic) {
		return fmt.Errorf("this arm64 kernel has no early-console record (an older kernel?)")
	}
	le := binary.LittleEndian
	le.PutUint64(img[offEarlyConsole+8:], uint64(c.Kind))
	le.PutUint64(img[offEarlyConsole+16:], c.Addr)
	stampSums(img, h)
	return nil
}

// ReadEarlyConsole is the early console an arm64 image names (ok false
// when it has no record).
func ReadEarlyConsole(img []byte) (c EarlyConsole, ok bool) {
	if len(img) < offEarlyConsole+earlyConsoleLen || !bytes.Equal(img[offEarlyConsole:offEarlyConsole+8], earlyConsoleMagic) {
		return c, false
	}
	le := binary.LittleEndian
	return EarlyConsole{EarlyConsoleKind(le.Uint64(img[offEarlyConsole+8:])), le.Uint64(img[offEarlyConsole+16:])}, true
}
