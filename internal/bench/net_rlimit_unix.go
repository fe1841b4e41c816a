//go:build unix

package bench

import "syscall"

// raiseNoFile sets this process's soft limit on open files to its hard
// limit, explicitly: Go raises it by itself at startup but then gives
// children (QEMU, whose user network holds a host socket per guest
// connection) the original soft limit back, unless the program set the
// limit itself.
func raiseNoFile() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil {
		l.Cur = l.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}
