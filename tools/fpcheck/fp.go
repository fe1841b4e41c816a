package main

// The decoder: which RISC-V instruction encodings touch the floating-point
// unit (the F, D and Q extensions, and V's loads and stores, which share
// their major opcodes). Only the major opcode (and, for CSR instructions,
// the CSR number) is needed, so this is a table, not a disassembler.

import "encoding/binary"

// 32-bit major opcodes (bits 6..0) that are floating point.
var fpOpcodes = map[uint32]string{
	0x07: "fp load (LOAD-FP)",
	0x27: "fp store (STORE-FP)",
	0x43: "fmadd",
	0x47: "fmsub",
	0x4b: "fnmsub",
	0x4f: "fnmadd",
	0x53: "fp arithmetic (OP-FP)",
}

// The FP CSRs: fflags, frm, fcsr.
func fpCSR(csr uint32) bool { return csr >= 1 && csr <= 3 }

// fpInstruction reports whether the instruction at the start of code is a
// floating-point one (and which), and its length in bytes (2 or 4).
func fpInstruction(code []byte) (what string, length int) {
	if len(code) < 2 {
		return "", len(code)
	}
	half := binary.LittleEndian.Uint16(code)
	if half&3 != 3 { // compressed (RVC)
		op, funct3 := half&3, half>>13
		switch {
		case op == 0 && funct3 == 1:
			return "c.fld", 2
		case op == 0 && funct3 == 5:
			return "c.fsd", 2
		case op == 2 && funct3 == 1:
			return "c.fldsp", 2
		case op == 2 && funct3 == 5:
			return "c.fsdsp", 2
		}
		return "", 2
	}
	if len(code) < 4 {
		return "", len(code)
	}
	word := binary.LittleEndian.Uint32(code)
	if what, ok := fpOpcodes[word&0x7f]; ok {
		return what, 4
	}
	// SYSTEM with funct3 != 0 is a CSR instruction; bits 31..20 name the CSR.
	if word&0x7f == 0x73 && (word>>12)&7 != 0 && fpCSR(word>>20) {
		return "fp csr access", 4
	}
	return "", 4
}
