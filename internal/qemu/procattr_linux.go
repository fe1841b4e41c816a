package qemu

import "syscall"

// sysProcAttr makes the kernel SIGKILL QEMU when gometal dies, however it
// dies: `go test -exec` kills the exec program on a timeout, and an
// orphaned QEMU would otherwise spin on a core forever. ownGroup puts QEMU
// in a process group of its own, out of reach of a terminal's Ctrl-C
// (gometal passes that signal to the program instead).
func sysProcAttr(ownGroup bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: ownGroup}
}
