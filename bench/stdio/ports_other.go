//go:build !(linux && (riscv64 || arm64))

package main

import (
	"errors"
	"os"
)

// useConsolePorts: the benchmark guest is linux/riscv64 or linux/arm64; elsewhere (go vet on the
// host) there are no console ports to move to.
func useConsolePorts(string) (*os.File, error) { return nil, errors.New("console ports: linux/riscv64 and linux/arm64 only") }
