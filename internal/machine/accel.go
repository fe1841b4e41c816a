package machine

// Choosing QEMU's accelerator: KVM or HVF run the guest's instructions on
// the host's CPU when both are the same architecture; TCG translates them
// (and is the only choice across architectures). Choose is pure: the host
// is passed in (HostNow reads the real one), so every case is unit-tested
// on a machine without KVM.

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Accel is a QEMU accelerator: the value of -accel.
type Accel string

const (
	AccelAuto Accel = "auto" // KVM or HVF where the guest can run natively, else TCG
	AccelKVM  Accel = "kvm"  // Linux's hardware virtualization
	AccelHVF  Accel = "hvf"  // macOS's Hypervisor.framework
	AccelTCG  Accel = "tcg"  // QEMU's binary translator: any guest on any host
)

// Accels lists the values -accel accepts, auto first.
var Accels = []Accel{AccelAuto, AccelKVM, AccelHVF, AccelTCG}

// ParseAccel parses an -accel value ("" is auto).
func ParseAccel(s string) (Accel, error) {
	if s == "" {
		return AccelAuto, nil
	}
	for _, a := range Accels {
		if string(a) == s {
			return a, nil
		}
	}
	names := make([]string, len(Accels))
	for i, a := range Accels {
		names[i] = string(a)
	}
	return "", fmt.Errorf("%q: want %s", s, strings.Join(names, ", "))
}

// Host is what decides which accelerators can run a guest: the host's
// operating system and architecture (GOOS, GOARCH) and whether /dev/kvm
// can be opened for reading and writing.
type Host struct {
	OS, Arch string
	KVM      bool
}

// HostNow describes the machine gometal runs on.
func HostNow() Host {
	h := Host{OS: runtime.GOOS, Arch: runtime.GOARCH}
	if h.OS == "linux" {
		if f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0); err == nil {
			f.Close()
			h.KVM = true
		}
	}
	return h
}

// native returns the hardware accelerator that runs guest on h, or "".
func (h Host) native(guest *Arch) Accel {
	if h.Arch != guest.Name {
		return ""
	}
	switch {
	case h.OS == "linux" && h.KVM:
		return AccelKVM
	case h.OS == "darwin":
		return AccelHVF
	}
	return ""
}

// why says why accelerator a cannot run guest on h.
func (h Host) why(a Accel, guest *Arch) string {
	switch {
	case h.Arch != guest.Name:
		return fmt.Sprintf("the host is %s and the program %s", h.Arch, guest.Name)
	case a == AccelKVM && h.OS != "linux":
		return "KVM needs a Linux host"
	case a == AccelKVM:
		return "/dev/kvm is missing or not readable and writable"
	case a == AccelHVF:
		return "HVF needs a macOS host"
	}
	return "not available"
}

// ChooseAccel picks the accelerator for a guest of architecture guest on
// host h when the user asked for req. auto: KVM (Linux) or HVF (macOS)
// when the host is the guest's architecture and (for KVM) /dev/kvm is
// usable, else TCG, silently. An explicit kvm or hvf that cannot run the
// guest falls back to TCG, and note is the one line that says so; tcg is
// always possible.
func ChooseAccel(req Accel, h Host, guest *Arch) (a Accel, note string) {
	switch req {
	case AccelAuto, "":
		if n := h.native(guest); n != "" {
			return n, ""
		}
		return AccelTCG, ""
	case AccelTCG:
		return AccelTCG, ""
	}
	if h.native(guest) == req {
		return req, ""
	}
	return AccelTCG, fmt.Sprintf("-accel %s: %s; using TCG (emulation, much slower)", req, h.why(req, guest))
}

// Native reports whether a runs the guest's instructions on the host CPU.
func (a Accel) Native() bool { return a == AccelKVM || a == AccelHVF }

// CPUFor is -cpu for m under accelerator a: the host's own CPU under KVM
// or HVF (a modelled CPU such as cortex-a72 cannot be virtualized), else
// the machine's model.
func (m *Machine) CPUFor(a Accel) string {
	if a.Native() {
		return "host"
	}
	return m.CPU
}

// MachineArgFor is -M for m under accelerator a: under KVM an arm64 virt
// machine takes the host's GIC version (gic-version=host: KVM can only
// offer the interrupt controller the host has); otherwise MachineArg.
func (m *Machine) MachineArgFor(a Accel) string {
	if a != AccelKVM || m.Arch != ARM64 {
		return m.MachineArg()
	}
	opts := []string{m.Type}
	for _, o := range m.Options {
		if strings.HasPrefix(o, "gic-version=") {
			o = "gic-version=host"
		}
		opts = append(opts, o)
	}
	return strings.Join(opts, ",")
}
