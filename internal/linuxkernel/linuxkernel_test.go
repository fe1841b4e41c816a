package linuxkernel

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseSourcesOneLine(t *testing.T) {
	text := `# comment
deb http://mirror.example/debian bookworm main
deb-src http://mirror.example/debian bookworm main
deb [arch=amd64 signed-by=/k.gpg] http://other.example/debian-security bookworm-security main
`
	got := ParseSources(text, false)
	want := []string{"http://mirror.example/debian", "http://other.example/debian-security"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseSourcesDeb822(t *testing.T) {
	text := `Types: deb
# http://snapshot.example/archive/debian/20250520T000000Z
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main

Types: deb-src
URIs: http://src.example/debian

Types: deb
Enabled: no
URIs: http://disabled.example/debian
`
	got := ParseSources(text, true)
	want := []string{"http://mirror.example/debian"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDependency(t *testing.T) {
	show := "Package: linux-image-riscv64\nVersion: 6.12.107-1\nDepends: linux-image-6.12.107+deb13-riscv64 (= 6.12.107-1)\n"
	got, err := dependency(show)
	if err != nil || got != "linux-image-6.12.107+deb13-riscv64" {
		t.Errorf("dependency = %q, %v", got, err)
	}
	if _, err := dependency("Package: x\n"); err == nil {
		t.Error("no Depends accepted")
	}
}

func TestCheckConfigAndCache(t *testing.T) {
	dir := t.TempDir()
	boot := filepath.Join(dir, "linux-image-X-riscv64", "boot")
	os.MkdirAll(boot, 0o755)
	os.WriteFile(filepath.Join(boot, "config-X"), []byte("CONFIG_SERIAL_8250=y\nCONFIG_RISCV_SBI=m\n"), 0o644)
	img := make([]byte, 64)
	copy(img[48:], "RISCV\x00\x00\x00")
	img[16] = 0x00
	img[17] = 0x10 // image_size = 0x1000
	os.WriteFile(filepath.Join(boot, "vmlinux-X"), img, 0o644)
	os.WriteFile(filepath.Join(dir, "linux-image-X-riscv64", "META"), []byte("package=linux-image-X-riscv64\nversion=1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "current"), []byte("linux-image-X-riscv64\n"), 0o644)
	mod := filepath.Join(dir, "linux-image-X-riscv64", "usr", "lib", "modules", "X", VirtioMMIOModule+".xz")
	os.MkdirAll(filepath.Dir(mod), 0o755)
	os.WriteFile(mod, []byte("module"), 0o644)
	k, err := Fetch(dir, nil) // cached: no network
	if err != nil {
		t.Fatal(err)
	}
	if k.Package != "linux-image-X-riscv64" || filepath.Base(k.Image) != "vmlinux-X" || k.Version != "1" || k.VirtioMMIO != mod {
		t.Errorf("cached kernel = %+v", k)
	}
	checks, err := CheckConfig(k.Config)
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]string{}
	for _, c := range checks {
		vals[c.Option] = c.Value
	}
	if vals["CONFIG_SERIAL_8250"] != "y" || vals["CONFIG_RISCV_SBI"] != "m" || vals["CONFIG_BLK_DEV_INITRD"] != "" {
		t.Errorf("checks = %v", vals)
	}
	if n, err := LoadedSize(k.Image); err != nil || n != 0x1000 {
		t.Errorf("LoadedSize = %#x, %v", n, err)
	}
}

// TestArm64ImageAndConfig: an arm64 Image header (magic "ARM\x64" at 56)
// gives its image_size, and arm64's config list names the arm64 options.
func TestArm64ImageAndConfig(t *testing.T) {
	img := make([]byte, 64)
	copy(img[56:], "ARM\x64")
	img[17] = 0x20 // image_size = 0x2000
	p := filepath.Join(t.TempDir(), "Image")
	os.WriteFile(p, img, 0o644)
	if n, err := LoadedSize(p); err != nil || n != 0x2000 {
		t.Errorf("LoadedSize(arm64 Image) = %#x, %v", n, err)
	}
	var names []string
	for _, c := range NeededFor("arm64") {
		names = append(names, c.Option)
	}
	got := strings.Join(names, " ")
	for _, want := range []string{"CONFIG_SERIAL_AMBA_PL011", "CONFIG_ARM_PSCI_FW", "CONFIG_VIRTIO_MMIO"} {
		if !strings.Contains(got, want) {
			t.Errorf("NeededFor(arm64) lacks %s: %s", want, got)
		}
	}
	if strings.Contains(got, "CONFIG_RISCV_SBI") {
		t.Errorf("NeededFor(arm64) names riscv64's SBI: %s", got)
	}
}
