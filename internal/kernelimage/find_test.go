package kernelimage

import (
	"errors"
	"fmt"
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
		Embedded: func() (string, error) { return "/cache/embedded.elf", nil },
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
	k, err := f.Locate("")
	if err != nil || k != (Kernel{"/cache/embedded.elf", FromEmbedded}) || built != "" {
		t.Errorf("Locate = %+v, %v (built %q); want the embedded kernel", k, err, built)
	}
}

// Outside a checkout, or in one without cargo, the embedded kernel boots;
// a checkout whose kernel does not build is an error, not a silent switch.
func TestLocateFallsBackToEmbedded(t *testing.T) {
	var built string
	f := fakeFinder(nil, t.TempDir(), "", &built)
	if k, err := f.Locate(""); err != nil || k.Source != FromEmbedded {
		t.Errorf("outside a checkout: Locate = %+v, %v", k, err)
	}
	root := checkoutTree(t, `name = "gometal-kernel"`)
	f = fakeFinder(nil, root, "", &built)
	f.Build = func(string) (string, error) { return "", fmt.Errorf("%w (needed ...)", ErrNoCargo) }
	if k, err := f.Locate(""); err != nil || k.Source != FromEmbedded {
		t.Errorf("checkout without cargo: Locate = %+v, %v", k, err)
	}
	f.Build = func(string) (string, error) { return "", errors.New("compile error") }
	if k, err := f.Locate(""); err == nil || k.Source != FromCheckout {
		t.Errorf("checkout that fails to build: Locate = %+v, %v; want the build error", k, err)
	}
	k, err := fakeFinder(map[string]string{EnvKernel: root + "/kernel/Cargo.toml"}, root, "", &built).Locate("")
	if err != nil || k.Source != FromEnv {
		t.Errorf("with $%s: Locate = %+v, %v", EnvKernel, k, err)
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
