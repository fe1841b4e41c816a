package elfcheck

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gometal.dev/gometal/internal/machine"
)

// fakeELF describes a synthetic ELF file: just the headers that Check reads.
type fakeELF struct {
	class   elf.Class
	machine elf.Machine
	typ     elf.Type
	interp  string // non-empty adds PT_INTERP
	dynamic bool   // adds PT_DYNAMIC
}

// bytes renders a little-endian ELF64 (or ELF32 header-only) image.
func (f fakeELF) bytes() []byte {
	var b bytes.Buffer
	ident := [16]byte{0x7f, 'E', 'L', 'F', byte(f.class), 1, 1}
	var progs []elf.Prog64
	var tail []byte
	if f.interp != "" {
		progs = append(progs, elf.Prog64{Type: uint32(elf.PT_INTERP), Filesz: uint64(len(f.interp) + 1)})
		tail = append([]byte(f.interp), 0)
	}
	if f.dynamic {
		progs = append(progs, elf.Prog64{Type: uint32(elf.PT_DYNAMIC)})
	}
	if f.class == elf.ELFCLASS32 {
		binary.Write(&b, binary.LittleEndian, elf.Header32{Ident: ident,
			Type: uint16(f.typ), Machine: uint16(f.machine), Version: 1, Ehsize: 52})
		return b.Bytes()
	}
	phoff := uint64(64)
	tailOff := phoff + uint64(56*len(progs))
	for i := range progs {
		if progs[i].Type == uint32(elf.PT_INTERP) {
			progs[i].Off = tailOff
		}
	}
	binary.Write(&b, binary.LittleEndian, elf.Header64{Ident: ident,
		Type: uint16(f.typ), Machine: uint16(f.machine), Version: 1,
		Phoff: phoff, Ehsize: 64, Phentsize: 56, Phnum: uint16(len(progs))})
	binary.Write(&b, binary.LittleEndian, progs)
	b.Write(tail)
	return b.Bytes()
}

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheck(t *testing.T) {
	good := fakeELF{class: elf.ELFCLASS64, machine: elf.EM_RISCV, typ: elf.ET_EXEC}
	cases := []struct {
		name string
		data []byte
		want string // substring of the error; "" means success
		arch *machine.Arch
	}{
		{"good", good.bytes(), "", machine.RISCV64},
		{"arm64", fakeELF{elf.ELFCLASS64, elf.EM_AARCH64, elf.ET_EXEC, "", false}.bytes(), "", machine.ARM64},
		{"script", []byte("#!/bin/sh\necho hi\n"), "prog: not an ELF executable", nil},
		{"empty", nil, "prog: not an ELF executable", nil},
		{"x86", fakeELF{elf.ELFCLASS64, elf.EM_X86_64, elf.ET_EXEC, "", false}.bytes(),
			"prog: built for x86-64 (EM 62), gometal runs riscv64 and arm64 binaries: build with GOOS=linux GOARCH=riscv64 CGO_ENABLED=0", nil},
		{"rv32", fakeELF{elf.ELFCLASS32, elf.EM_RISCV, elf.ET_EXEC, "", false}.bytes(), "built for riscv32 (EM 243)", nil},
		{"dynamic", fakeELF{elf.ELFCLASS64, elf.EM_RISCV, elf.ET_DYN, "/lib/ld-linux-riscv64-lp64d.so.1", true}.bytes(),
			"prog: dynamically linked (interpreter /lib/ld-linux-riscv64-lp64d.so.1), rebuild with CGO_ENABLED=0", nil},
		{"dynsection", fakeELF{elf.ELFCLASS64, elf.EM_RISCV, elf.ET_EXEC, "", true}.bytes(), "dynamically linked (has a dynamic section)", nil},
		{"arm64 dynamic", fakeELF{elf.ELFCLASS64, elf.EM_AARCH64, elf.ET_DYN, "/lib/ld-linux-aarch64.so.1", true}.bytes(),
			"prog: dynamically linked (interpreter /lib/ld-linux-aarch64.so.1), rebuild with CGO_ENABLED=0", nil},
		{"object", fakeELF{elf.ELFCLASS64, elf.EM_RISCV, elf.ET_REL, "", false}.bytes(), "not a static executable (type ET_REL)", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := write(t, "prog", c.data)
			arch, err := Check(path)
			if c.want == "" {
				if err != nil || arch != c.arch {
					t.Fatalf("Check = %v, %v; want %v, nil", arch, err, c.arch)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Check = %v, want %q", err, c.want)
			}
		})
	}
}

func TestCheckMissing(t *testing.T) {
	_, err := Check("no/such/prog")
	if err == nil || err.Error() != "no/such/prog: no such file or directory" {
		t.Fatalf("Check(missing) = %v", err)
	}
}
