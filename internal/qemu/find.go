package qemu

import (
	"errors"
	"os"
	"os/exec"
)

// DefaultBinary is the QEMU system emulator for 64-bit RISC-V.
const DefaultBinary = "qemu-system-riscv64"

// EnvBinary names the environment variable that overrides the QEMU binary.
const EnvBinary = "GOMETAL_QEMU"

// ErrNotFound means no QEMU could be found; its text tells the user how
// to install one.
var ErrNotFound = errors.New(DefaultBinary + " not found; install it with: sudo apt-get install qemu-system-misc")

// Find returns the QEMU binary to run: explicit if set (a -qemu flag), else
// $GOMETAL_QEMU, else qemu-system-riscv64 from PATH.
func Find(explicit string) (string, error) {
	return find(explicit, os.Getenv(EnvBinary), exec.LookPath)
}

func find(explicit, env string, lookPath func(string) (string, error)) (string, error) {
	name := DefaultBinary
	switch {
	case explicit != "":
		name = explicit
	case env != "":
		name = env
	}
	path, err := lookPath(name)
	if err != nil {
		if name == DefaultBinary {
			return "", ErrNotFound
		}
		return "", err
	}
	return path, nil
}
