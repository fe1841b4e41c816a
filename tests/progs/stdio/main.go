// Test program stdio: the three standard streams as a Linux process has
// them. With no argument it copies stdin to stdout byte for byte (io.Copy)
// and reports on stderr how many bytes, their SHA-256, and isatty for each
// of fds 0-2, so the harness can check `< in > out 2> err` exactly. With
// "order N" it alternates N lines on stdout and stderr, numbered, so a
// harness that gives both the same file can check that they stay in order.
// With "direct" it copies with io.Copy(os.Stdout, os.Stdin), the form that
// makes Go's os try copy_file_range first, and writes nothing else: the
// harness checks that stderr stays empty (no kernel text about that probe).
package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// isatty asks for the terminal settings, as golang.org/x/term does.
func isatty(fd uintptr) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "order" {
		n, _ := strconv.Atoi(os.Args[2])
		for i := 0; i < n; i++ {
			fmt.Fprintf(os.Stdout, "line %d stdout\n", 2*i)
			fmt.Fprintf(os.Stderr, "line %d stderr\n", 2*i+1)
		}
		fmt.Println("PASS stdio-order")
		return
	}
	if len(os.Args) == 2 && os.Args[1] == "direct" {
		if _, err := io.Copy(os.Stdout, os.Stdin); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL stdio-direct: %v\n", err)
			os.Exit(1)
		}
		return
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(os.Stdout, h), os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL stdio: copying stdin to stdout: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "stdio: copied %d bytes sha256 %x\n", n, h.Sum(nil))
	fmt.Fprintf(os.Stderr, "stdio: isatty 0=%v 1=%v 2=%v\n", isatty(0), isatty(1), isatty(2))
	fmt.Fprintln(os.Stderr, "PASS stdio")
}
