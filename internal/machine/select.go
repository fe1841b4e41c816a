package machine

// Choosing a machine: from a binary's ELF machine, from -arch, $GOARCH or
// the host; and the one-line errors for what is described but not yet
// supported.

import (
	"debug/elf"
	"fmt"
	"strings"
)

// Default is the machine gometal boots a program on when nothing says
// otherwise.
func Default() *Machine { return RISCV64.Default() }

// Default is the machine gometal boots a's programs on: the first of a's
// machines in the table.
func (a *Arch) Default() *Machine {
	for _, m := range Machines {
		if m.Arch == a {
			return m
		}
	}
	panic("machine: no machine for " + a.Name) // the table's own test rules this out
}

// Supported reports whether gometal's kernel runs a's programs.
func (a *Arch) Supported() bool { return a.Default().Supported }

// Check returns nil when gometal runs a's programs, else one line that
// says it does not yet and names the architectures it does run.
func (a *Arch) Check() error {
	if a.Supported() {
		return nil
	}
	return fmt.Errorf("%s is not supported yet: gometal's kernel runs %s programs", a.Name, SupportedArches())
}

// Check returns nil when gometal's kernel boots on m, else one line that
// says it does not yet and names the machines it does boot on.
func (m *Machine) Check() error {
	if m.Supported {
		return nil
	}
	var ok []string
	for _, s := range Machines {
		if s.Supported {
			ok = append(ok, s.Name)
		}
	}
	return fmt.Errorf("machine %s is not supported yet: gometal's kernel boots on %s", m.Name, join(ok))
}

// SupportedArches names the architectures gometal runs: "riscv64",
// "riscv64 and arm64".
func SupportedArches() string {
	var names []string
	for _, a := range Arches {
		if a.Supported() {
			names = append(names, a.Name)
		}
	}
	return join(names)
}

// ArchOfELF returns the described architecture whose binaries carry the
// ELF machine em, or nil.
func ArchOfELF(em elf.Machine) *Arch {
	for _, a := range Arches {
		if a.ELF == em {
			return a
		}
	}
	return nil
}

// ArchNamed returns the architecture with GOARCH name, or an error that
// lists the described ones.
func ArchNamed(name string) (*Arch, error) {
	var names []string
	for _, a := range Arches {
		if a.Name == name {
			return a, nil
		}
		names = append(names, a.Name)
	}
	return nil, fmt.Errorf("%q: want %s", name, strings.Join(names, " or "))
}

// Named returns the machine called name ("riscv64-virt").
func Named(name string) (*Machine, error) {
	var names []string
	for _, m := range Machines {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return nil, fmt.Errorf("no machine %q (have: %s)", name, strings.Join(names, ", "))
}

// ChooseArch picks the architecture to build a package for. An explicit
// choice (-arch) must name a supported architecture. Without one: $GOARCH
// (goarch) when gometal runs it, else the host's architecture (host, a
// GOARCH) when gometal runs it, else riscv64 — so riscv64 on riscv64 and
// x86-64 hosts, arm64 on arm64 hosts. A $GOARCH gometal cannot run
// (amd64) is passed over: it is the user's setting for host builds.
func ChooseArch(explicit, goarch, host string) (*Arch, error) {
	if explicit != "" {
		a, err := ArchNamed(explicit)
		if err != nil {
			return nil, err
		}
		return a, a.Check()
	}
	for _, name := range []string{goarch, host} {
		if a, err := ArchNamed(name); err == nil && a.Supported() {
			return a, nil
		}
	}
	return RISCV64, nil
}

// join lists names as a sentence does: "a", "a and b", "a, b and c".
func join(names []string) string {
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
