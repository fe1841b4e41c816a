package main

import "testing"

// Encodings from the RISC-V unprivileged ISA, as GNU as assembles them.
func TestFPInstruction(t *testing.T) {
	cases := []struct {
		name  string
		code  []byte
		fp    bool
		bytes int
	}{
		{"fsd f0,0(a0)", []byte{0x27, 0x30, 0x05, 0x00}, true, 4},
		{"fld f1,8(a0)", []byte{0x87, 0x30, 0x85, 0x00}, true, 4},
		{"fadd.d fa0,fa0,fa1", []byte{0x53, 0x75, 0xb5, 0x02}, true, 4},
		{"fmadd.d", []byte{0x43, 0x75, 0xb5, 0x62}, true, 4},
		{"frcsr t0 (csrrs t0,fcsr,zero)", []byte{0xf3, 0x22, 0x30, 0x00}, true, 4},
		{"fscsr t0 (csrrw zero,fcsr,t0)", []byte{0x73, 0x90, 0x32, 0x00}, true, 4},
		{"c.fsd fs0,0(a0)", []byte{0x00, 0xa1}, true, 2},
		{"c.fldsp fa0,0(sp)", []byte{0x02, 0x25}, true, 2},
		{"ld a0,0(sp)", []byte{0x03, 0x35, 0x01, 0x00}, false, 4},
		{"sd ra,8(sp)", []byte{0x23, 0x34, 0x11, 0x00}, false, 4},
		{"c.ld a0,0(a0)", []byte{0x08, 0x61}, false, 2},
		{"c.sdsp ra,8(sp)", []byte{0x06, 0xe4}, false, 2},
		{"csrr a0,sstatus", []byte{0x73, 0x25, 0x00, 0x10}, false, 4},
		{"ecall", []byte{0x73, 0x00, 0x00, 0x00}, false, 4},
		{"add a0,a0,a1", []byte{0x33, 0x05, 0xb5, 0x00}, false, 4},
	}
	for _, c := range cases {
		what, n := fpInstruction(c.code)
		if (what != "") != c.fp || n != c.bytes {
			t.Errorf("%s: got %q, %d bytes; want fp=%v, %d bytes", c.name, what, n, c.fp, c.bytes)
		}
	}
}

func TestJudge(t *testing.T) {
	ok := []finding{{"fp_save", 0x10, "fp store"}, {"fp_restore", 0x20, "fp load"}}
	if p := judge(ok); len(p) != 0 {
		t.Errorf("FP only in the save/restore code: %v", p)
	}
	bad := append(ok, finding{"kernel::memcpy", 0x30, "fp load"})
	if p := judge(bad); len(p) != 1 {
		t.Errorf("FP in kernel code: want one problem, got %v", p)
	}
	if p := judge(nil); len(p) != 2 {
		t.Errorf("no FP at all: want the blindness problems, got %v", p)
	}
}

func TestScanSection(t *testing.T) {
	// ret; then fsd f0,0(a0) in "leak"; then c.fsd in fp_save.
	code := []byte{0x82, 0x80, 0x27, 0x30, 0x05, 0x00, 0x00, 0xa1}
	syms := []symbol{{"start", 0x1000}, {"leak", 0x1002}, {"fp_save", 0x1006}}
	got := scanSection(code, 0x1000, syms)
	if len(got) != 2 || got[0].symbol != "leak" || got[0].addr != 0x1002 || got[1].symbol != "fp_save" {
		t.Errorf("got %+v", got)
	}
}

func TestScanSectionSkipsData(t *testing.T) {
	// fsd in code; the same bytes after "$d" are data; after "$x", code again.
	fsd := []byte{0x27, 0x30, 0x05, 0x00}
	code := append(append(append([]byte{}, fsd...), fsd...), fsd...)
	syms := []symbol{{"$x", 0x0}, {"fp_save", 0x0}, {"$d", 0x4}, {"table", 0x4}, {"$x", 0x8}, {"other", 0x8}}
	got := scanSection(code, 0, syms)
	if len(got) != 2 || got[0].symbol != "fp_save" || got[1].symbol != "other" || got[1].addr != 8 {
		t.Errorf("got %+v", got)
	}
}
