// Package guest holds what every benchmark program shares: reporting
// results on the console in a form `gometal bench` parses, reading the
// guest clock, and powering the machine off the same way on gometal and on
// Linux.
//
// Result lines look like
//
//	BENCH {"bench":"mandelbrot","mode":"fixed","g":4,"ms":1234.5}
//
// one JSON object per line, so the host needs no per-benchmark parser.
package guest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Prefix starts every result line.
const Prefix = "BENCH "

// Report prints one result line. kv alternates keys (strings) and values.
func Report(bench string, kv ...any) {
	ReportTo(os.Stdout, bench, kv...)
}

// ReportTo prints a result line on w (stderr, for a benchmark whose stdout
// is its data).
func ReportTo(w io.Writer, bench string, kv ...any) {
	m := map[string]any{"bench": bench}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		b = []byte(fmt.Sprintf(`{"bench":%q,"error":%q}`, bench, err.Error()))
	}
	// One write per line so that lines from different threads never mix.
	w.Write(append([]byte(Prefix), append(b, '\n')...))
}

// Fail reports an error result and powers off.
func Fail(bench string, err error) {
	Report(bench, "error", err.Error())
	PowerOff()
}

// MS converts a duration to milliseconds as a float.
func MS(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Percentile returns the p-th percentile (0–100) of sorted values, the
// sample at that rank (0 for none).
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(p/100*float64(len(sorted)-1))]
}

// Ints parses a comma-separated list of integers ("1,2,4").
func Ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bad integer list %q\n", s)
			PowerOff()
		}
		out = append(out, n)
	}
	return out
}

// BootMS returns CLOCK_BOOTTIME in milliseconds: on gometal the time since
// QEMU reset the machine, on Linux the time since the kernel started.
func BootMS() float64 {
	var ts syscall.Timespec
	const clockBoottime = 7
	_, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockBoottime, uintptr(unsafe.Pointer(&ts)), 0)
	if e != 0 {
		return -1
	}
	return float64(ts.Sec)*1e3 + float64(ts.Nsec)/1e6
}

// PowerOff ends the machine with reboot(LINUX_REBOOT_CMD_POWER_OFF), which
// both kernels implement; Linux must not see init exit (that is a panic).
// If the call fails the program exits, which still ends a gometal machine
// and, with panic=-1 and -no-reboot, a Linux one.
func PowerOff() {
	os.Stdout.Sync()
	err := syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	fmt.Fprintf(os.Stderr, "reboot(POWER_OFF): %v\n", err)
	os.Exit(1)
}
