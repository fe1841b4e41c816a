//go:build !riscv64

package main

// sysGetrandom: the program only runs on riscv64; on other architectures
// (go vet on the host) the call fails with ENOSYS.
const sysGetrandom = ^uintptr(0)
