// Command fpcheck fails when the kernel image contains a floating-point
// instruction outside the code that saves and restores the program's FP
// registers (arch/fp.S).
//
// Why: FP is enabled in sstatus on every hart and the kernel never saves a
// thread's FP registers on a trap, only on a switch (the registers hold the
// program's values while the kernel runs). One FP instruction the compiler
// emits into kernel code would silently corrupt a Go program's floats. The
// target (riscv64gc, lp64d) allows FP code, and turning F/D off for it is not
// supported by rustc for an lp64d target, so the rule is checked on the
// built image instead: every function's bytes are decoded and any FP
// encoding outside the allowed symbols fails `make kernel`.
//
//	go run ./tools/fpcheck kernel/target/riscv64gc-unknown-none-elf/release/gometal-kernel
package main

import (
	"debug/elf"
	"fmt"
	"os"
	"sort"
	"strings"
)

// allowed are the symbols that may (and must) hold FP instructions.
var allowed = []string{"fp_save", "fp_restore"}

// finding is one FP instruction in the image.
type finding struct {
	symbol string
	addr   uint64
	what   string
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fpcheck KERNEL-ELF")
		os.Exit(2)
	}
	found, err := scan(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fpcheck:", err)
		os.Exit(2)
	}
	if problems := judge(found); len(problems) > 0 {
		fmt.Fprintln(os.Stderr, "fpcheck: "+os.Args[1]+":\n  "+strings.Join(problems, "\n  "))
		os.Exit(1)
	}
	fmt.Printf("fpcheck: no floating point outside %s (%d FP instructions there)\n",
		strings.Join(allowed, ", "), len(found))
}

// judge lists what is wrong with the findings: FP outside the allowed
// symbols, or none inside them (the decoder or the symbol names went wrong).
func judge(found []finding) []string {
	var problems []string
	inside := map[string]int{}
	for _, f := range found {
		if contains(allowed, f.symbol) {
			inside[f.symbol]++
			continue
		}
		problems = append(problems, fmt.Sprintf("%s at %#x in %s", f.what, f.addr, f.symbol))
	}
	for _, s := range allowed {
		if inside[s] == 0 {
			problems = append(problems, fmt.Sprintf("no FP instructions in %s: is the check blind?", s))
		}
	}
	return problems
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// scan decodes the code of every executable section of the ELF at path,
// attributing each instruction to the nearest symbol at or before it.
func scan(path string) ([]finding, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	var found []finding
	for _, sec := range f.Sections {
		if sec.Type != elf.SHT_PROGBITS || sec.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		code, err := sec.Data()
		if err != nil {
			return nil, fmt.Errorf("section %s: %v", sec.Name, err)
		}
		found = append(found, scanSection(code, sec.Addr, symbolsIn(syms, sec))...)
	}
	return found, nil
}

// symbol is a named address; data marks the assembler's "$d" mapping
// symbols (data from here on) and code its "$x" ones (code again).
type symbol struct {
	name string
	addr uint64
}

func (s symbol) isData() bool { return strings.HasPrefix(s.name, "$d") }
func (s symbol) isCode() bool { return strings.HasPrefix(s.name, "$x") }

// symbolsIn lists the code symbols and mapping symbols inside sec, by address.
func symbolsIn(syms []elf.Symbol, sec *elf.Section) []symbol {
	var out []symbol
	for _, s := range syms {
		t := elf.ST_TYPE(s.Info)
		if s.Name == "" || (t != elf.STT_FUNC && t != elf.STT_NOTYPE) || strings.HasPrefix(s.Name, ".L") {
			continue
		}
		if s.Value >= sec.Addr && s.Value < sec.Addr+sec.Size {
			out = append(out, symbol{s.Name, s.Value})
		}
	}
	// Mapping symbols first at an address, so a name there is not lost.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].addr != out[j].addr {
			return out[i].addr < out[j].addr
		}
		return strings.HasPrefix(out[i].name, "$") && !strings.HasPrefix(out[j].name, "$")
	})
	return out
}

// scanSection decodes code (loaded at base) piece by piece between symbols:
// each symbol starts a fresh decode, so padding before it cannot shift the
// instruction boundaries after it, and what follows a "$d" mapping symbol
// (data the assembler put among instructions, like the boot page table) is
// skipped until the next "$x".
func scanSection(code []byte, base uint64, syms []symbol) []finding {
	var found []finding
	starts := append([]symbol{{"(section start)", base}}, syms...)
	inData := false
	owner := starts[0].name
	for i, s := range starts {
		switch {
		case s.isData():
			inData = true
		case s.isCode():
			inData = false
		default:
			owner = s.name
		}
		end := base + uint64(len(code))
		if i+1 < len(starts) {
			end = starts[i+1].addr
		}
		for at := s.addr; at < end && !inData; {
			what, n := fpInstruction(code[at-base : end-base])
			if what != "" {
				found = append(found, finding{owner, at, what})
			}
			at += uint64(n)
		}
	}
	return found
}
