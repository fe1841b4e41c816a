package machine

// Choosing a machine: the architecture from a binary's ELF, -arch,
// -machine, $GOARCH or the host (ResolveArch, the one rule every command
// follows); and the one-line errors for what is described but not yet
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

// ArchInputs are everything that can say which architecture a program
// runs as; ResolveArch weighs them.
type ArchInputs struct {
	Flag    string   // -arch as given ("": not given)
	Machine *Machine // the -machine asked for (nil: not given)
	// Binary is a prebuilt program's architecture, from its ELF header
	// (nil: a package still to build), and BinaryName its path, for errors.
	Binary     *Arch
	BinaryName string
	GOARCH     string // $GOARCH, the user's setting for the go command
	Host       string // the host's GOARCH (runtime.GOARCH)
}

// ResolveArch is gometal's one rule for the architecture a program runs
// as, for every command (run, exec, build, bench):
//
//  1. a prebuilt binary runs as what its ELF says; an -arch or -machine
//     that says otherwise is an error, never a silent switch;
//  2. else -arch, which must name an architecture gometal runs;
//  3. else -machine's architecture;
//  4. else $GOARCH when gometal runs it (a $GOARCH it does not run, such
//     as amd64, is the user's setting for host builds and is passed over);
//  5. else the host's architecture when gometal runs it;
//  6. else riscv64 — so riscv64 on riscv64 and x86-64 hosts, arm64 on
//     arm64 hosts.
func ResolveArch(in ArchInputs) (*Arch, error) {
	var flag *Arch
	if in.Flag != "" {
		a, err := ArchNamed(in.Flag)
		if err != nil {
			return nil, fmt.Errorf("-arch %v", err)
		}
		if err := a.Check(); err != nil {
			return nil, fmt.Errorf("-arch %v", err)
		}
		flag = a
	}
	chosen := flag
	switch {
	case in.Binary != nil:
		if flag != nil && flag != in.Binary {
			return nil, fmt.Errorf("%s: built for %s, not -arch %s", in.BinaryName, in.Binary.Name, flag.Name)
		}
		chosen = in.Binary
	case flag != nil:
	case in.Machine != nil:
		chosen = in.Machine.Arch
	default:
		chosen = RISCV64
		for _, name := range []string{in.GOARCH, in.Host} {
			if a, err := ArchNamed(name); err == nil && a.Supported() {
				chosen = a
				break
			}
		}
	}
	if in.Machine != nil && in.Machine.Arch != chosen {
		return nil, fmt.Errorf("-machine %s runs %s programs; this one is %s", in.Machine.Name, in.Machine.Arch.Name, chosen.Name)
	}
	return chosen, chosen.Check()
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
