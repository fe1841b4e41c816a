package gobuild

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gometal.dev/gometal/internal/machine"
)

func TestEnviron(t *testing.T) {
	host := []string{"HOME=/root", "GOOS=darwin", "CGO_ENABLED=1", "GOARCH=amd64", "GOFLAGS=-mod=mod"}
	got := Environ(host, machine.RISCV64)
	want := []string{"HOME=/root", "GOFLAGS=-mod=mod", "GOOS=linux", "GOARCH=riscv64", "CGO_ENABLED=0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Environ = %q, want %q", got, want)
	}
	if got := Environ(host, machine.ARM64); got[len(got)-2] != "GOARCH=arm64" {
		t.Errorf("Environ(arm64) = %q", got)
	}
	if !reflect.DeepEqual(TargetEnv, want[2:]) {
		t.Errorf("TargetEnv = %q", TargetEnv)
	}
}

func TestExeName(t *testing.T) {
	cases := map[string]string{
		"./examples/hello": "hello", "./examples/hello/": "hello",
		"example.com/tool/v2": "tool", "main.go": "main", "dir/prog.go": "prog",
		"gometal.dev/gometal/examples/mandelbrot": "mandelbrot",
	}
	for in, want := range cases {
		if got := ExeName(in); got != want {
			t.Errorf("ExeName(%q) = %q, want %q", in, got, want)
		}
	}
	wd, _ := os.Getwd()
	if got := ExeName("."); got != filepath.Base(wd) {
		t.Errorf("ExeName(.) = %q, want %q", got, filepath.Base(wd))
	}
}

// TestBuild runs the real go command on a tiny module; it is skipped in
// -short mode because a cold cross-compile takes a few seconds.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles a program")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not in PATH")
	}
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "go.mod"), []byte("module hello\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\nfunc main() { println(\"hi\") }\n"), 0o644)
	out, err := Build(context.Background(), Options{Package: ".", OutDir: t.TempDir(), Go: goCmd, Dir: src, Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != elf.EM_RISCV || f.Type != elf.ET_EXEC {
		t.Errorf("built %v %v, want EM_RISCV ET_EXEC", f.Machine, f.Type)
	}

	os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\nfunc main() { undefined() }\n"), 0o644)
	var stderr bytes.Buffer
	_, err = Build(context.Background(), Options{Package: ".", OutDir: t.TempDir(), Go: goCmd, Dir: src, Stderr: &stderr})
	if !errors.Is(err, ErrFailed) || !strings.Contains(stderr.String(), "undefined") {
		t.Errorf("broken build: err = %v, stderr = %q", err, stderr.String())
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Errorf("ModuleRoot %q has no go.mod: %v", root, err)
	}
}

func TestRunAll(t *testing.T) {
	ok := []Job{{What: "nothing", Args: []string{"version"}}}
	if err := RunAll(context.Background(), ".", ok, nil); err != nil {
		t.Errorf("go version: %v", err)
	}
	bad := append(ok, Job{What: "the impossible", Args: []string{"no-such-subcommand"}})
	besideErr := errors.New("no kernel")
	err := RunAll(context.Background(), ".", bad, func() error { return besideErr })
	if err == nil || !strings.Contains(err.Error(), "building the impossible") || !errors.Is(err, besideErr) {
		t.Errorf("a failing job and a failing beside(): err = %v", err)
	}
}
