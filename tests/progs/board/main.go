// Test program board: what a program finds when it boots from a one-file
// image (gometal build) on a machine the way a board starts it: its
// arguments, environment and files from the image, the CPUs the machine
// has, the serial console as stdin, and random numbers as the machine's
// entropy allows. Usage:
//
//	board NCPU STATUS ENTROPY [STDIN]
//
// NCPU: the CPUs the runtime must see; STATUS: the exit status to end
// with; ENTROPY: "yes" (getrandom works without blocking) or "no" (it
// reports EAGAIN, as Linux before its pool is ready); STDIN: if given,
// the text stdin must hold before its end (Ctrl-D on a serial console).
// The image must set BOARD=ok and add /etc/board.txt holding "board".
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"
)

const grndNonblock = 1

func fail(format string, args ...any) {
	fmt.Printf("FAIL board: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	fmt.Printf("board: args %q\n", os.Args)
	if len(os.Args) != 4 && len(os.Args) != 5 {
		fail("usage: board NCPU STATUS ENTROPY [STDIN]")
	}
	ncpu, err1 := strconv.Atoi(os.Args[1])
	status, err2 := strconv.Atoi(os.Args[2])
	if err := errors.Join(err1, err2); err != nil {
		fail("%v", err)
	}
	if n := runtime.NumCPU(); n != ncpu {
		fail("NumCPU = %d, want %d", n, ncpu)
	}
	if v := os.Getenv("BOARD"); v != "ok" {
		fail("BOARD = %q, want \"ok\"", v)
	}
	if data, err := os.ReadFile("/etc/board.txt"); err != nil || string(data) != "board\n" {
		fail("/etc/board.txt: %q, %v", data, err)
	}
	checkEntropy(os.Args[3] == "yes")
	if len(os.Args) == 5 {
		fmt.Println("board: reading stdin")
		data, err := io.ReadAll(os.Stdin)
		if err != nil || string(data) != os.Args[4] {
			fail("stdin: %q, %v; want %q", data, err, os.Args[4])
		}
	}
	fmt.Printf("PASS board (NumCPU=%d, exiting with %d)\n", ncpu, status)
	os.Exit(status)
}

// checkEntropy calls getrandom(GRND_NONBLOCK): it succeeds once the
// kernel's generator is keyed from real entropy, and is EAGAIN before.
func checkEntropy(want bool) {
	var buf [16]byte
	_, _, errno := syscall.Syscall(sysGetrandom, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), grndNonblock)
	switch {
	case want && errno != 0:
		fail("getrandom: %v, want random bytes", errno)
	case !want && errno != syscall.EAGAIN:
		fail("getrandom: %v, want EAGAIN (no entropy source)", errno)
	}
	fmt.Printf("board: getrandom(GRND_NONBLOCK): %v\n", map[bool]string{true: "bytes", false: "EAGAIN"}[errno == 0])
}
