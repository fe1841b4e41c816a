package qemu

import (
	"errors"
	"os"
	"os/exec"

	"gometal.dev/gometal/internal/machine"
)

// EnvBinary names the environment variable that overrides the QEMU binary.
const EnvBinary = "GOMETAL_QEMU"

// ErrNotFound means the architecture's QEMU is not installed; the error
// Find returns (errors.Is ErrNotFound) says which package to install.
var ErrNotFound = errors.New("QEMU not found")

// notFound is ErrNotFound for one architecture, with the install hint.
type notFound struct{ arch *machine.Arch }

func (e notFound) Error() string {
	return e.arch.QEMU + " not found; install it with: sudo apt-get install " + e.arch.QEMUPackage
}

func (e notFound) Is(target error) bool { return target == ErrNotFound }

// Find returns the QEMU binary to run for arch: explicit if set (a -qemu
// flag), else $GOMETAL_QEMU, else the architecture's system emulator
// (qemu-system-riscv64) from PATH.
func Find(explicit string, arch *machine.Arch) (string, error) {
	return find(explicit, os.Getenv(EnvBinary), arch, exec.LookPath)
}

func find(explicit, env string, arch *machine.Arch, lookPath func(string) (string, error)) (string, error) {
	name := arch.QEMU
	switch {
	case explicit != "":
		name = explicit
	case env != "":
		name = env
	}
	path, err := lookPath(name)
	if err != nil {
		if name == arch.QEMU {
			return "", notFound{arch}
		}
		return "", err
	}
	return path, nil
}
