// Package kernelimage locates the gometal kernel ELF that QEMU boots:
// an explicit path, an environment variable, or — when gometal runs from a
// source checkout — the kernel built from that checkout with cargo, so that
// `go run ./cmd/gometal run ...` always boots the kernel next to it.
package kernelimage

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// EnvKernel names the environment variable holding a kernel path.
const EnvKernel = "GOMETAL_KERNEL"

// crateName identifies the kernel's Cargo.toml, so that an unrelated
// kernel/ directory higher up the tree is never mistaken for ours.
const crateName = `name = "gometal-kernel"`

// ErrNotFound is returned when no kernel is configured and no checkout is
// found.
var ErrNotFound = errors.New("cannot find the gometal kernel; pass -kernel PATH or set " + EnvKernel)

// Finder holds the process facts that Find depends on, so tests can fake
// them. The zero value is not usable; see New.
type Finder struct {
	Getenv     func(string) string
	Getwd      func() (string, error)
	Executable func() (string, error)
	// Build compiles the kernel crate in dir and returns the ELF's path.
	Build func(dir string) (string, error)
}

// New returns a Finder for the real process that builds with cargo,
// calling slow (if not nil) when a build is taking a while.
func New(slow func()) *Finder {
	return &Finder{
		Getenv:     os.Getenv,
		Getwd:      os.Getwd,
		Executable: os.Executable,
		Build:      func(dir string) (string, error) { return CargoBuild(dir, slow) },
	}
}

// Find returns the kernel to boot: explicit (the -kernel flag) if set, else
// $GOMETAL_KERNEL, else the kernel built from the enclosing checkout.
func (f *Finder) Find(explicit string) (string, error) {
	for _, p := range []string{explicit, f.Getenv(EnvKernel)} {
		if p != "" {
			return p, checkFile(p)
		}
	}
	dir := f.checkout()
	if dir == "" {
		return "", ErrNotFound
	}
	return f.Build(dir)
}

// checkout returns the kernel crate directory of the source tree that
// contains the working directory or the gometal executable, or "".
func (f *Finder) checkout() string {
	var starts []string
	if wd, err := f.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := f.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		starts = append(starts, filepath.Dir(exe))
	}
	for _, start := range starts {
		if dir := searchUp(start); dir != "" {
			return dir
		}
	}
	return ""
}

// searchUp walks from dir to the root looking for kernel/Cargo.toml that
// declares the gometal-kernel crate.
func searchUp(dir string) string {
	for {
		kdir := filepath.Join(dir, "kernel")
		data, err := os.ReadFile(filepath.Join(kdir, "Cargo.toml"))
		if err == nil && bytes.Contains(data, []byte(crateName)) {
			return kdir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func checkFile(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("kernel %s: %w", p, errors.Unwrap(err))
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("kernel %s: not a regular file", p)
	}
	return nil
}
