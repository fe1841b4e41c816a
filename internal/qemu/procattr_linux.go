package qemu

import "syscall"

// sysProcAttr makes the kernel SIGKILL QEMU when gometal dies, however it
// dies: `go test -exec` kills the exec program on a timeout, and an
// orphaned QEMU would otherwise spin on a core forever.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
