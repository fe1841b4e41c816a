//go:build !linux

package qemu

import "syscall"

// sysProcAttr: only Linux has a parent-death signal; ownGroup as there.
func sysProcAttr(ownGroup bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: ownGroup}
}
