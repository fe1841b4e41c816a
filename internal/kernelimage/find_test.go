package kernelimage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// checkoutTree creates root/kernel/Cargo.toml declaring the kernel crate
// and returns root.
func checkoutTree(t *testing.T, crate string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "kernel"), 0o755); err != nil {
		t.Fatal(err)
	}
	toml := "[package]\n" + crate + "\nversion = \"0.1.0\"\n"
	if err := os.WriteFile(filepath.Join(root, "kernel", "Cargo.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "cmd", "gometal"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// fakeFinder looks from wd and exe and records which crate it would build.
func fakeFinder(env map[string]string, wd, exe string, built *string) *Finder {
	return &Finder{
		Getenv:     func(k string) string { return env[k] },
		Getwd:      func() (string, error) { return wd, nil },
		Executable: func() (string, error) { return exe, errors.New("none") },
		Build: func(dir string) (string, error) {
			*built = dir
			return filepath.Join(dir, "kernel.elf"), nil
		},
	}
}

func TestFindExplicitAndEnv(t *testing.T) {
	k := filepath.Join(t.TempDir(), "k.elf")
	os.WriteFile(k, []byte("elf"), 0o644)
	var built string
	f := fakeFinder(map[string]string{EnvKernel: "/no/such/kernel"}, "/", "", &built)
	if p, err := f.Find(k); p != k || err != nil {
		t.Errorf("Find(explicit) = %q, %v", p, err)
	}
	if _, err := f.Find(""); err == nil || err.Error() != "kernel /no/such/kernel: no such file or directory" {
		t.Errorf("Find with a bad $%s: err = %v", EnvKernel, err)
	}
	if built != "" {
		t.Errorf("built %q although a kernel was given", built)
	}
}

func TestFindCheckoutFromWorkingDir(t *testing.T) {
	root := checkoutTree(t, `name = "gometal-kernel"`)
	var built string
	f := fakeFinder(nil, filepath.Join(root, "cmd", "gometal"), "", &built)
	p, err := f.Find("")
	if err != nil || built != filepath.Join(root, "kernel") || p != filepath.Join(root, "kernel", "kernel.elf") {
		t.Errorf("Find = %q, %v; built %q", p, err, built)
	}
}

func TestFindCheckoutFromExecutable(t *testing.T) {
	root := checkoutTree(t, `name = "gometal-kernel"`)
	var built string
	f := fakeFinder(nil, t.TempDir(), "", &built)
	f.Executable = func() (string, error) { return filepath.Join(root, "cmd", "gometal", "gometal"), nil }
	if _, err := f.Find(""); err != nil || built != filepath.Join(root, "kernel") {
		t.Errorf("Find = %v; built %q", err, built)
	}
}

func TestFindIgnoresOtherKernels(t *testing.T) {
	root := checkoutTree(t, `name = "some-other-kernel"`)
	var built string
	f := fakeFinder(nil, root, "", &built)
	if _, err := f.Find(""); err != ErrNotFound {
		t.Errorf("Find = %v, want ErrNotFound", err)
	}
}

func TestExecutableFromCargoJSON(t *testing.T) {
	msgs := `{"reason":"compiler-artifact","target":{"name":"gometal-core"},"executable":null}
not json
{"reason":"compiler-artifact","target":{"name":"gometal-kernel"},"executable":"/t/release/gometal-kernel"}
{"reason":"build-finished","success":true}`
	if got := executable([]byte(msgs)); got != "/t/release/gometal-kernel" {
		t.Errorf("executable = %q", got)
	}
	if got := executable(nil); got != "" {
		t.Errorf("executable(nil) = %q", got)
	}
}
