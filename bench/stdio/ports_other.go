//go:build !riscv64

package main

import (
	"errors"
	"os"
)

// useConsolePorts: the benchmark guest is riscv64; elsewhere (go vet on the
// host) there are no console ports to move to.
func useConsolePorts(string) (*os.File, error) { return nil, errors.New("console ports: riscv64 only") }
