// Package elfcheck decides, before anything boots, whether a file is a
// program gometal can run: a static Linux ELF executable for an
// architecture gometal's kernel supports (internal/machine), and which
// architecture that is. Catching a wrong binary on the host turns a
// confusing guest crash into a one-line error that says how to rebuild.
package elfcheck

import (
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"gometal.dev/gometal/internal/machine"
)

// Error explains why a file cannot run. Its message starts with the path,
// so a caller only adds its own prefix.
type Error struct {
	Path   string
	Reason string
}

func (e *Error) Error() string { return e.Path + ": " + e.Reason }

// Check returns the architecture of path if it is a static ELF executable
// gometal can run, and an *Error (or the underlying I/O error) otherwise.
func Check(path string) (*machine.Arch, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	arch, reason := problem(f)
	if reason != "" {
		return nil, &Error{Path: path, Reason: reason}
	}
	return arch, nil
}

// openError turns errors from elf.Open into short messages: a missing file
// reads "prog: no such file or directory", not "open prog: ...".
func openError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &Error{Path: path, Reason: pe.Err.Error()}
	}
	var fe *elf.FormatError
	if errors.As(err, &fe) || errors.Is(err, errors.ErrUnsupported) {
		return &Error{Path: path, Reason: "not an ELF executable"}
	}
	// elf.Open reports short files as io.EOF/io.ErrUnexpectedEOF; anything
	// too short to be ELF is simply not ELF.
	if st, serr := os.Stat(path); serr == nil && st.Mode().IsRegular() {
		return &Error{Path: path, Reason: "not an ELF executable"}
	}
	return err
}

// problem returns f's architecture, and what is wrong with f or "" if it
// can run.
func problem(f *elf.File) (*machine.Arch, string) {
	arch := machine.ArchOfELF(f.Machine)
	if f.Class != elf.ELFCLASS64 || arch == nil || !arch.Supported() {
		sep := ","
		if f.Class == elf.ELFCLASS64 && arch != nil {
			sep = ", not supported yet:" // described (internal/machine), no kernel yet
		}
		return nil, fmt.Sprintf("built for %s (EM %d)%s gometal runs %s binaries: build with %s",
			archName(f), int(f.Machine), sep, machine.SupportedArches(), machine.Default().Arch.BuildHint())
	}
	hint := arch.BuildHint()
	// Checked before the type: a dynamic PIE is also ET_DYN, and "dynamically
	// linked" is the message that tells the user what to change.
	if interp, dynamic := dynamicLinking(f); dynamic {
		how := "has a dynamic section"
		if interp != "" {
			how = "interpreter " + interp
		}
		return nil, fmt.Sprintf("dynamically linked (%s), rebuild with CGO_ENABLED=0", how)
	}
	if f.Type != elf.ET_EXEC {
		return nil, fmt.Sprintf("not a static executable (type %s), build with %s", f.Type, hint)
	}
	if f.OSABI != elf.ELFOSABI_NONE && f.OSABI != elf.ELFOSABI_LINUX {
		return nil, fmt.Sprintf("built for %s, gometal runs Linux binaries: build with %s", f.OSABI, hint)
	}
	return arch, ""
}

// dynamicLinking reports whether f needs a dynamic loader, and which one.
func dynamicLinking(f *elf.File) (interp string, dynamic bool) {
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_INTERP:
			buf := make([]byte, p.Filesz)
			if n, _ := p.ReadAt(buf, 0); n > 0 {
				interp = trimNUL(string(buf[:n]))
			}
			dynamic = true
		case elf.PT_DYNAMIC:
			dynamic = true
		}
	}
	return interp, dynamic
}

func trimNUL(s string) string {
	for len(s) > 0 && s[len(s)-1] == 0 {
		s = s[:len(s)-1]
	}
	return s
}

// archName names the architecture the way Go users know it.
func archName(f *elf.File) string {
	names := map[elf.Machine]string{
		elf.EM_X86_64: "x86-64", elf.EM_386: "x86", elf.EM_AARCH64: "arm64",
		elf.EM_ARM: "arm", elf.EM_PPC64: "ppc64", elf.EM_S390: "s390x",
		elf.EM_MIPS: "mips", elf.EM_LOONGARCH: "loong64",
	}
	if f.Machine == elf.EM_RISCV && f.Class == elf.ELFCLASS32 {
		return "riscv32"
	}
	if n, ok := names[f.Machine]; ok {
		return n
	}
	return f.Machine.String()
}
