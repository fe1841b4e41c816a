//go:build linux && (riscv64 || arm64)

package main

// On the Linux guest the program's stdio is /dev/console (the UART), not
// the console ports gometal gives it. For the same setup on both kernels,
// the benchmark passes Linux the virtio-mmio transport module (Debian
// builds it as a module) and this program loads it, mounts devtmpfs and
// moves its stdin, stdout and stderr onto ports 1, 2 and 3 itself.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// sysFinitModule is finit_module in the asm-generic table (riscv64 and arm64).
const sysFinitModule = 273

// moduleInitCompressedFile lets finit_module take the .ko.xz as shipped.
const moduleInitCompressedFile = 4

// useConsolePorts returns the console (the former stderr) for the result
// line, so that it does not depend on the ports it measures.
func useConsolePorts(module string) (*os.File, error) {
	fd2, err := syscall.Dup(2)
	if err != nil {
		return os.Stderr, err
	}
	console := os.NewFile(uintptr(fd2), "console")
	f, err := os.Open(module)
	if err != nil {
		return console, err
	}
	defer f.Close()
	flags := uintptr(0)
	if strings.HasSuffix(module, ".xz") {
		flags = moduleInitCompressedFile
	}
	empty := []byte{0}
	if _, _, e := syscall.Syscall(sysFinitModule, f.Fd(), uintptr(unsafe.Pointer(&empty[0])), flags); e != 0 && e != syscall.EEXIST {
		return console, fmt.Errorf("finit_module %s: %v", module, e)
	}
	os.MkdirAll("/dev", 0o755)
	if err := syscall.Mount("devtmpfs", "/dev", "devtmpfs", 0, ""); err != nil && err != syscall.EBUSY {
		return console, fmt.Errorf("mount devtmpfs: %v", err)
	}
	var ports []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ports, _ = filepath.Glob("/dev/vport*p[123]"); len(ports) == 3 {
			break
		}
	}
	if len(ports) != 3 {
		return console, fmt.Errorf("console ports: found %q", ports)
	}
	for fd, port := range ports {
		mode := syscall.O_WRONLY
		if fd == 0 {
			mode = syscall.O_RDONLY
		}
		// A raw open: os.OpenFile would make the descriptor non-blocking
		// (for the netpoller), and stdio descriptors are blocking.
		p, err := openPort(port, mode)
		if err != nil {
			return console, fmt.Errorf("open %s: %v", port, err)
		}
		if err := syscall.Dup3(p, fd, 0); err != nil {
			return console, fmt.Errorf("dup3 %s: %v", port, err)
		}
		syscall.Close(p)
	}
	return console, nil
}

// openPort opens a port device, retrying while Linux has created its node
// but not yet listed the port (open then fails with ENXIO for a moment).
func openPort(path string, mode int) (int, error) {
	for tries := 0; ; tries++ {
		fd, err := syscall.Open(path, mode, 0)
		if err != syscall.ENXIO || tries == 100 {
			return fd, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}
