//go:build !amd64

package main

// The asm-generic numbers (riscv64, arm64); the syscall package lacks them.
const (
	sysRecvmmsg = 243
	sysSendmmsg = 269
)
