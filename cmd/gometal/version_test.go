package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestVersionErrors(t *testing.T) {
	if err := versionMain([]string{"extra"}, io.Discard); err == nil || report(io.Discard, err) != 2 {
		t.Errorf("version extra: %v, want a usage error", err)
	}
	notELF := filepath.Join(t.TempDir(), "kernel")
	os.WriteFile(notELF, []byte("text"), 0o644)
	if err := versionMain([]string{"-kernel", notELF}, io.Discard); err == nil || !strings.Contains(err.Error(), "not an ELF file") {
		t.Errorf("version -kernel <text file>: %v", err)
	}
}

// TestVersionNamesEveryKernel: gometal version describes the kernel of
// each architecture it runs, one line each, with where it came from (the
// kernels embedded in gometal, named by their variables here).
func TestVersionNamesEveryKernel(t *testing.T) {
	embedded := map[string]string{"riscv64": "gometal-kernel.elf", "arm64": "gometal-kernel-arm64.elf"}
	for arch, file := range embedded {
		env := "GOMETAL_KERNEL"
		if arch == "arm64" {
			env = "GOMETAL_KERNEL_ARM64"
		}
		path, err := filepath.Abs(filepath.Join("..", "..", "internal", "kernelimage", file))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("the embedded %s kernel: %v", arch, err)
		}
		t.Setenv(env, path)
	}
	var out bytes.Buffer
	if err := versionMain(nil, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "gometal ") {
		t.Fatalf("gometal version:\n%s\nwant gometal's line and one per kernel", out.String())
	}
	for i, arch := range []string{"riscv64", "arm64"} {
		env := map[string]string{"riscv64": "$GOMETAL_KERNEL:", "arm64": "$GOMETAL_KERNEL_ARM64:"}[arch]
		want := regexp.MustCompile(`^kernel ` + arch + ` \S+ build-id [0-9a-f]{40} \(` + regexp.QuoteMeta(env) + ` .*` + embedded[arch] + `\)$`)
		if !want.MatchString(lines[i+1]) {
			t.Errorf("line %d: %q; want %v", i+2, lines[i+1], want)
		}
	}
}
