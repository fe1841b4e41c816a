package bootimage

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"strings"
	"testing"
)

// The same vectors as kernel/core/src/boot/bootimage.rs's checksum_known_values.
func TestChecksumMatchesKernel(t *testing.T) {
	for in, want := range map[string]uint64{"": 0xcbf29ce484222325, "gometal!": 0xfb751f2ed9be9426} {
		if got := Checksum([]byte(in)); got != want {
			t.Errorf("Checksum(%q) = %#x, want %#x", in, got, want)
		}
	}
	if Checksum([]byte("gometal")) != Checksum([]byte("gometal\x00")) {
		t.Error("a short tail is not zero-padded")
	}
}

// fakeKernel is a flat riscv64 Image with a descriptor: code up to
// checkedSize, then "data" up to its length, image_size beyond it.
func fakeKernel(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, 3*page+100)
	copy(k[offMagic2:], "RSC\x05")
	copy(k[offDescriptor:], descriptorMagic)
	le := binary.LittleEndian
	le.PutUint32(k, 0x0800006f) // j _start
	le.PutUint64(k[offImageSize:], 5*page)
	le.PutUint64(k[offCheckedSize:], 2*page)
	for i := codeStart; i < len(k); i++ {
		k[i] = byte(i * 7)
	}
	le.PutUint64(k[offCodeSum:], Checksum(k[codeStart:2*page]))
	return k
}

func TestPayloadRoundTrip(t *testing.T) {
	k := fakeKernel(t)
	img, err := WithPayload(k, "verbose -- a b", []byte("070701cpio..."))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Check(img)
	if err != nil {
		t.Fatal(err)
	}
	if h.Arch != "riscv64" || !h.HasPayload() || h.PayloadOffset != 5*page || uint64(len(img)) != h.ImageSize {
		t.Fatalf("header %+v, file %d bytes", h, len(img))
	}
	if got := string(img[h.PayloadOffset : h.PayloadOffset+h.CmdlineLen]); got != "verbose -- a b" {
		t.Errorf("command line %q", got)
	}
	start := h.PayloadOffset + h.InitramfsOffset
	if got := string(img[start : start+h.InitramfsLen]); got != "070701cpio..." {
		t.Errorf("initramfs %q", got)
	}
	if _, err := WithPayload(img, "", nil); err == nil {
		t.Error("a second payload was accepted")
	}
}

func TestCheckFindsDamage(t *testing.T) {
	img, err := WithPayload(fakeKernel(t), "x", []byte("initramfs"))
	if err != nil {
		t.Fatal(err)
	}
	corrupt := func(at int) []byte {
		c := append([]byte(nil), img...)
		c[at] ^= 0x40
		return c
	}
	for name, c := range map[string]struct {
		img  []byte
		want string
	}{
		"truncated payload": {img[:5*page+10], "truncated"},
		"truncated kernel":  {img[:page], "truncated"},
		"code":              {corrupt(page), "kernel's code"},
		"payload":           {corrupt(5*page + 4096 + 3), "program does not match"},
		"not an image":      {make([]byte, 200), "not a Linux kernel Image"},
	} {
		if _, err := Check(c.img); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	arm := append([]byte(nil), img...)
	copy(arm[offMagic2:], "ARM\x64")
	if h, _ := ReadHeader(arm); h.Arch != "arm64" {
		t.Errorf("arm64 magic read as %q", h.Arch)
	}
	if _, err := Check(arm); err == nil || !strings.Contains(err.Error(), "not arm64 code") {
		t.Errorf("a riscv64 image with arm64's magic: %v", err)
	}
}

// An arm64 kernel with room for the PE header (the "MZ" ccmp first, the
// place's offset at 0x3c holding the EFI entry's offset) comes out of
// WithPayload as a PE32+ EFI application covering the whole file.
func TestPEHeader(t *testing.T) {
	k := fakeKernel(t)
	le := binary.LittleEndian
	le.PutUint32(k, 0xfa405a4d)
	copy(k[offMagic2:], "ARM\x64")
	le.PutUint32(k[offPE:], 0x200)
	clear(k[0x200 : 0x200+peSpace])
	le.PutUint64(k[0x200:], 0x1234)
	le.PutUint64(k[offCodeSum:], Checksum(k[codeStart:2*page]))
	img, err := WithPayload(k, "x", []byte("initramfs"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Check(img); err != nil {
		t.Fatalf("Check after stamping the PE header: %v", err)
	}
	f, err := pe.NewFile(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	opt := f.OptionalHeader.(*pe.OptionalHeader64)
	s := f.Sections[0]
	if f.Machine != pe.IMAGE_FILE_MACHINE_ARM64 || opt.Subsystem != pe.IMAGE_SUBSYSTEM_EFI_APPLICATION || opt.AddressOfEntryPoint != 0x1234 ||
		uint64(opt.SizeOfImage) != uint64(len(img)) || s.Offset != 0x1000 || s.VirtualAddress != 0x1000 || uint64(s.Size) != uint64(len(img))-0x1000 {
		t.Errorf("PE header: machine %#x, %+v, section %+v", f.Machine, opt, s.SectionHeader)
	}
	// Stamped again (a kernel image made into another): the same entry.
	if err := stampPE(img); err != nil || le.Uint32(img[0x200+24+16:]) != 0x1234 {
		t.Errorf("restamp: %v, entry %#x", err, le.Uint32(img[0x200+24+16:]))
	}
}

// The early console: Linux's earlycon= spellings, and the record written
// into an arm64 image under its checksum.
func TestEarlyConsole(t *testing.T) {
	for in, want := range map[string]EarlyConsole{
		"none":                       {},
		"pl011,0x9000000":            {EarlyConsolePL011, 0x9000000},
		"pl011,mmio32,0xfe201000":    {EarlyConsolePL011, 0xfe201000},
		"uart8250,mmio,0x10000000":   {EarlyConsole8250, 0x10000000},
		"uart8250,mmio32,0xfe215040": {EarlyConsole8250MMIO, 0xfe215040},
	} {
		got, err := ParseEarlyConsole(in)
		if err != nil || got != want {
			t.Errorf("ParseEarlyConsole(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "pl011", "pl011,", "pl011,mmio,0x9000000", "pl011,0x9000002", "cdns,0x1000", "uart8250,io,0x3f8"} {
		if _, err := ParseEarlyConsole(in); err == nil {
			t.Errorf("ParseEarlyConsole(%q) accepted", in)
		}
	}
	k := fakeKernel(t)
	if err := SetEarlyConsole(k, QEMUVirtEarlyConsole); err == nil {
		t.Error("SetEarlyConsole took a riscv64 image")
	}
	le := binary.LittleEndian
	le.PutUint32(k, 0x14000400) // b 0x1000
	copy(k[offMagic2:], "ARM\x64")
	copy(k[offEarlyConsole:], "GMEARLYC")
	le.PutUint64(k[offCodeSum:], Checksum(k[codeStart:2*page]))
	want := EarlyConsole{EarlyConsolePL011, 0xfe201000}
	if err := SetEarlyConsole(k, want); err != nil {
		t.Fatal(err)
	}
	if got, ok := ReadEarlyConsole(k); !ok || got != want {
		t.Errorf("ReadEarlyConsole = %v, %v; want %v", got, ok, want)
	}
	if _, err := Check(k); err != nil {
		t.Errorf("Check after SetEarlyConsole: %v", err)
	}
}
