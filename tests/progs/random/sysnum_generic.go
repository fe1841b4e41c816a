//go:build riscv64 || arm64

package main

// sysGetrandom is getrandom's number on linux/riscv64 and linux/arm64 (the
// asm-generic table both use).
const sysGetrandom = 278
