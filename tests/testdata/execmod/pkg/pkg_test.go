package pkg

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

func read(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != want {
		t.Errorf("read %s: %q, %v; want %q", path, b, err, want)
	}
}

// The package's testdata, a sibling directory and the module's testdata,
// by relative paths from the package directory.
func TestRelativePaths(t *testing.T) {
	read(t, "testdata/local.txt", "the package's own testdata\n")
	read(t, "../sibling/data.txt", "a sibling package's file\n")
	read(t, "../testdata/root.txt", "module root testdata\n")
}

// The same files by absolute paths: the working directory is the package's
// host directory, and this source file is where the compiler saw it.
func TestAbsolutePaths(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil || filepath.Base(wd) != "pkg" || !filepath.IsAbs(wd) {
		t.Fatalf("working directory %q, %v; want the package directory", wd, err)
	}
	read(t, filepath.Join(wd, "testdata", "local.txt"), "the package's own testdata\n")
	read(t, filepath.Join(filepath.Dir(wd), "sibling", "data.txt"), "a sibling package's file\n")
	_, src, _, _ := runtime.Caller(0)
	if b, err := os.ReadFile(src); err != nil || len(b) == 0 {
		t.Errorf("this test's own source %s: %v", src, err)
	}
	t.Logf("module at %s", filepath.Dir(wd))
}

// What a test sees of a nested module and what a write into the package
// directory does depend on -module; the host test reads these lines.
func TestReportModule(t *testing.T) {
	if _, err := os.Stat("../nested/go.mod"); err == nil {
		t.Log("nested module: visible")
	} else {
		t.Log("nested module: absent")
	}
	err := os.WriteFile("written-by-test.txt", []byte("from the guest\n"), 0o644)
	switch {
	case err == nil:
		t.Log("write into the package directory: ok")
	case errors.Is(err, syscall.EROFS):
		t.Log("write into the package directory: EROFS")
	default:
		t.Logf("write into the package directory: %v", err)
	}
}
