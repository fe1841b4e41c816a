// Package kernelimage locates the gometal kernel ELF that QEMU boots:
// an explicit path, an environment variable, the kernel built with cargo
// from the source checkout gometal runs in (so `go run ./cmd/gometal run
// ...` boots the kernel next to it), or else the image embedded in gometal
// itself, so an installed gometal works anywhere without Rust.
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

// ErrNotFound is returned when no kernel is configured, no checkout is
// found and this gometal was built without an embedded kernel.
var ErrNotFound = errors.New("cannot find the gometal kernel; pass -kernel PATH or set " + EnvKernel)

// ErrNoCargo is returned by Build when there is no Rust toolchain: in a
// checkout, Find then boots the embedded kernel (the same bytes, as long
// as TestEmbeddedMatchesSources passes).
var ErrNoCargo = errors.New("cargo not found")

// Where a kernel came from, for `gometal version`.
const (
	FromFlag     = "-kernel"
	FromEnv      = "$" + EnvKernel
	FromCheckout = "built from the checkout"
	FromEmbedded = "embedded in gometal"
)

// Kernel is a kernel image to boot and where it came from.
type Kernel struct {
	Path   string
	Source string // one of the From* constants
}

// Finder holds the process facts that Find depends on, so tests can fake
// them. The zero value is not usable; see New.
type Finder struct {
	// Arch is the architecture (GOARCH name) of the kernel to find; ""
	// means riscv64.
	Arch       string
	Getenv     func(string) string
	Getwd      func() (string, error)
	Executable func() (string, error)
	// Build compiles the kernel crate in dir and returns the ELF's path.
	Build func(dir string) (string, error)
	// Embedded writes the embedded image to a file and returns its path.
	Embedded func() (string, error)
}

// New returns a Finder of the riscv64 kernel for the real process; see NewFor.
func New(slow func()) *Finder { return NewFor(DefaultArch, slow) }

// NewFor returns a Finder of arch's kernel for the real process that
// builds with cargo, calling slow (if not nil) when a build is taking a
// while.
func NewFor(arch string, slow func()) *Finder {
	return &Finder{
		Arch:       arch,
		Getenv:     os.Getenv,
		Getwd:      os.Getwd,
		Executable: os.Executable,
		Build:      func(dir string) (string, error) { return CargoBuildFor(dir, arch, slow) },
		Embedded:   func() (string, error) { return extractEmbeddedFor(arch) },
	}
}

// Find returns the path of the kernel to boot; see Locate.
func (f *Finder) Find(explicit string) (string, error) {
	k, err := f.Locate(explicit)
	return k.Path, err
}

// Locate returns the kernel to boot: explicit (the -kernel flag) if set,
// else $GOMETAL_KERNEL, else the kernel built from the enclosing checkout,
// else (outside a checkout, or with no cargo) the embedded image.
func (f *Finder) Locate(explicit string) (Kernel, error) {
	if explicit != "" {
		return Kernel{explicit, FromFlag}, checkFile(explicit)
	}
	if p := f.Getenv(EnvFor(f.Arch)); p != "" {
		return Kernel{p, "$" + EnvFor(f.Arch)}, checkFile(p)
	}
	if dir := f.checkout(); dir != "" {
		p, err := f.Build(dir)
		if !errors.Is(err, ErrNoCargo) {
			return Kernel{p, FromCheckout}, err
		}
	}
	p, err := f.Embedded()
	return Kernel{p, FromEmbedded}, err
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
		if dir := CheckoutKernelDir(start); dir != "" {
			return dir
		}
	}
	return ""
}

// CheckoutKernelDir walks from dir to the root looking for
// kernel/Cargo.toml that declares the gometal-kernel crate, and returns
// that kernel directory ("" if there is none).
func CheckoutKernelDir(dir string) string {
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
