package tests

// What the hwprobe case checks riscv_hwprobe against: the riscv64 machine
// as QEMU itself describes it. QEMU writes the device tree it would boot
// with (-M virt,dumpdtb=FILE), the boot hart's riscv,isa and the timebase
// come from there; the machine ids are QEMU's definition (target/riscv/
// cpu.c: mvendorid 0, marchid and mimpid the QEMU version as
// major<<16 | minor<<8 | micro), from `qemu-system-riscv64 --version`.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

var hwprobeMachine struct {
	once sync.Once
	args []string
}

// hwprobeArgs: the hwprobe program's arguments (ISA, timebase, ids), or
// arguments that make it say why they could not be found.
func hwprobeArgs(int) []string {
	m := &hwprobeMachine
	m.once.Do(func() {
		isa, timebase, err := qemuRISCV64DeviceTree()
		if err == nil {
			var ids string
			ids, err = qemuRISCV64IDs()
			m.args = []string{isa, strconv.FormatUint(timebase, 10), ids}
		}
		if err != nil {
			m.args = []string{"error: " + err.Error()}
		}
	})
	return m.args
}

// qemuRISCV64DeviceTree dumps the device tree of the machine the tests
// boot riscv64 programs on and reads cpu@0's riscv,isa and the timebase.
func qemuRISCV64DeviceTree() (string, uint64, error) {
	if riscv64.qemu == "" {
		return "", 0, fmt.Errorf("no qemu-system-riscv64")
	}
	dir, err := os.MkdirTemp("", "gometal-dtb")
	if err != nil {
		return "", 0, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "virt.dtb")
	args := []string{"-M", riscv64.machine.Type + ",dumpdtb=" + file, "-smp", "1", "-nographic"}
	if riscv64.machine.CPU != "" {
		args = append(args, "-cpu", riscv64.machine.CPU)
	}
	if out, err := exec.Command(riscv64.qemu, args...).CombinedOutput(); err != nil {
		return "", 0, fmt.Errorf("%s %v: %v: %s", riscv64.qemu, args, err, out)
	}
	blob, err := os.ReadFile(file)
	if err != nil {
		return "", 0, err
	}
	props, err := fdtProperties(blob)
	if err != nil {
		return "", 0, err
	}
	isa := strings.TrimRight(string(props["/cpus/cpu@0/riscv,isa"]), "\x00")
	tb := props["/cpus/timebase-frequency"]
	if isa == "" || len(tb) != 4 {
		return "", 0, fmt.Errorf("no riscv,isa or timebase-frequency in QEMU's device tree")
	}
	return isa, uint64(binary.BigEndian.Uint32(tb)), nil
}

// qemuRISCV64IDs: "mvendorid,marchid,mimpid" as QEMU defines them.
func qemuRISCV64IDs() (string, error) {
	out, err := exec.Command(riscv64.qemu, "--version").Output()
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`version (\d+)\.(\d+)\.(\d+)`).FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("no version in %q", out)
	}
	n := func(b []byte) uint64 { v, _ := strconv.ParseUint(string(b), 10, 64); return v }
	arch := n(m[1])<<16 | n(m[2])<<8 | n(m[3])
	return fmt.Sprintf("%#x,%#x,%#x", 0, arch, arch), nil
}

// fdtProperties reads a flattened device tree: every property by its path
// ("/cpus/cpu@0/riscv,isa").
func fdtProperties(blob []byte) (map[string][]byte, error) {
	u32 := func(off int) uint32 { return binary.BigEndian.Uint32(blob[off:]) }
	if len(blob) < 40 || u32(0) != 0xd00dfeed {
		return nil, fmt.Errorf("not a device tree")
	}
	structs, strs := int(u32(8)), int(u32(12))
	props := map[string][]byte{}
	var path []string
	for off := structs; off+4 <= len(blob); {
		token := u32(off)
		off += 4
		switch token {
		case 1: // FDT_BEGIN_NODE: a NUL-terminated name, padded to 4
			end := off + bytes.IndexByte(blob[off:], 0)
			path = append(path, string(blob[off:end]))
			off = (end + 4) &^ 3
		case 2: // FDT_END_NODE
			path = path[:len(path)-1]
		case 3: // FDT_PROP: length, name offset, value padded to 4
			length, nameOff := int(u32(off)), strs+int(u32(off+4))
			name := string(blob[nameOff : nameOff+bytes.IndexByte(blob[nameOff:], 0)])
			props[strings.Join(append(path, name), "/")] = blob[off+8 : off+8+length]
			off = (off + 8 + length + 3) &^ 3
		case 4: // FDT_NOP
		case 9: // FDT_END
			return props, nil
		default:
			return nil, fmt.Errorf("bad token %d at %d", token, off-4)
		}
	}
	return nil, fmt.Errorf("no FDT_END")
}
