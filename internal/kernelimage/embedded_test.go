package kernelimage

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbeddedMatchesSources builds each architecture's kernel from this
// checkout the way gometal does and requires the committed image to be
// those exact bytes, so an installed gometal boots the kernels its sources
// say.
func TestEmbeddedMatchesSources(t *testing.T) {
	if _, err := exec.LookPath("cargo"); err != nil {
		t.Skip("cargo not found: cannot build the kernel to compare the embedded image with")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	kdir := CheckoutKernelDir(wd)
	if kdir == "" {
		t.Fatalf("no kernel/ crate above %s", wd)
	}
	for _, arch := range []string{"riscv64", "arm64"} {
		built, err := CargoBuildFor(kdir, arch, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(built)
		if err != nil {
			t.Fatal(err)
		}
		if got, path := EmbeddedFor(arch), EmbeddedPathFor(arch); !bytes.Equal(got, want) {
			t.Errorf("%s (%d bytes) is not the %s kernel the sources build (%s, %d bytes):\n\trun `make kernel` and commit %s",
				path, len(got), arch, built, len(want), path)
		}
	}
}

func TestEmbeddedHasNotes(t *testing.T) {
	path, err := extractEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	info, err := ReadInfo(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version == "" || len(info.BuildID) != 40 {
		t.Errorf("embedded kernel: version %q, build-id %q; want a version and a 20-byte sha1 build-id", info.Version, info.BuildID)
	}
}

func TestExtractEmbeddedIsStable(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	p1, err := extractEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	// A damaged copy is replaced, not booted.
	if err := os.WriteFile(p1, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	p2, err := extractEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p2)
	if p1 != p2 || err != nil || !bytes.Equal(data, Embedded()) {
		t.Errorf("second extraction: %s (first %s), %v, equal=%v", p2, p1, err, bytes.Equal(data, Embedded()))
	}
}

func TestPrivateDirRefusesSharedDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := privateDir(dir); err == nil {
		t.Errorf("privateDir(%s) with mode 0777: no error", dir)
	}
	if err := privateDir(filepath.Join(t.TempDir(), "new")); err != nil {
		t.Errorf("privateDir(new): %v", err)
	}
}

func TestParseNotes(t *testing.T) {
	// A GNU build-id note (namesz 4, descsz 3, padded) then a gometal one.
	data := []byte{
		4, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xab, 0xcd, 0xef, 0,
		8, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 'g', 'o', 'm', 'e', 't', 'a', 'l', 0, '1', '.', '2', '.', '3', 0, 0, 0,
	}
	var info Info
	if err := parseNotes(data, binary.LittleEndian, &info); err != nil || info.BuildID != "abcdef" || info.Version != "1.2.3" {
		t.Errorf("parseNotes = %+v, %v", info, err)
	}
	for _, bad := range [][]byte{data[:10], data[:18], {4, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 3, 0, 0, 0}} {
		if err := parseNotes(bad, binary.LittleEndian, &info); err == nil {
			t.Errorf("parseNotes(% x): no error", bad)
		}
	}
}

func TestReadInfoRejectsOtherFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "k")
	os.WriteFile(p, []byte("not an elf"), 0o644)
	if _, err := ReadInfo(p); err == nil {
		t.Error("ReadInfo(not an ELF): no error")
	}
	exe, err := os.Executable() // an ELF with no gometal notes
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadInfo(exe); err == nil || !strings.Contains(err.Error(), "no gometal version") {
		t.Errorf("ReadInfo(test binary) = %v, want an error", err)
	}
}
