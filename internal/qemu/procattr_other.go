//go:build !linux

package qemu

import "syscall"

// sysProcAttr: only Linux has a parent-death signal.
func sysProcAttr() *syscall.SysProcAttr { return nil }
