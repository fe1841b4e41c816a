// Test program uioirq: interrupt affinity at run time (booted at 4 harts
// with -device edu). It moves edu's line to each hart through
// /proc/irq/N/smp_affinity and smp_affinity_list, raises interrupts and
// checks in /proc/interrupts that the chosen hart took every one of them,
// and that malformed masks and masks naming no online hart are EINVAL and
// leave the affinity as it was.
package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gometal.dev/gometal/uio/edu"
)

const harts = 4

func fail(format string, a ...any) {
	fmt.Printf("FAIL uioirq: "+format+"\n", a...)
	os.Exit(1)
}

func read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		fail("read %s: %v", path, err)
	}
	return string(b)
}

func write(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(text)
	return err
}

// counts is line irq's row of /proc/interrupts: interrupts per hart.
func counts(irq string) []int {
	for _, line := range strings.Split(read("/proc/interrupts"), "\n") {
		f := strings.Fields(line)
		if len(f) < 1+harts || f[0] != irq+":" {
			continue
		}
		out := make([]int, harts)
		for i := range out {
			n, err := strconv.Atoi(f[1+i])
			if err != nil {
				fail("/proc/interrupts row %q", line)
			}
			out[i] = n
		}
		return out
	}
	fail("no row for line %s in /proc/interrupts:\n%s", irq, read("/proc/interrupts"))
	return nil
}

// raise has the device interrupt n times, each waited for and acknowledged.
func raise(e *edu.Edu, n int) {
	for range n {
		e.Raise()
		done := make(chan error, 1)
		go func() { _, err := e.Dev.Wait(); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				fail("wait: %v", err)
			}
		case <-time.After(10 * time.Second):
			fail("no interrupt in 10s (an enable lost?)")
		}
		e.Ack(edu.IRQFactorial)
		if err := e.Dev.EnableInterrupts(); err != nil {
			fail("irqcontrol: %v", err)
		}
	}
}

func main() {
	e, err := edu.Open()
	if err != nil {
		fail("open: %v", err)
	}
	irq := strings.TrimSpace(read(fmt.Sprintf("/sys/class/uio/uio%d/device/irq", e.Dev.Index)))
	dir := "/proc/irq/" + irq + "/"
	if got := read(dir + "smp_affinity"); got != "1\n" {
		fail("boot affinity %q, want \"1\\n\" (device 0 on hart 0)", got)
	}
	if err := e.Dev.EnableInterrupts(); err != nil {
		fail("irqcontrol: %v", err)
	}
	const each = 20
	for i, h := range []int{2, 1, 3, 0} {
		mask := fmt.Sprintf("%x\n", 1<<h)
		file, text := "smp_affinity", mask
		if i%2 == 1 {
			file, text = "smp_affinity_list", fmt.Sprintf("%d\n", h)
		}
		if err := write(dir+file, text); err != nil {
			fail("write %q to %s: %v", text, file, err)
		}
		if got, list := read(dir+"smp_affinity"), read(dir+"smp_affinity_list"); got != mask || list != fmt.Sprintf("%d\n", h) {
			fail("after %s=%q: smp_affinity %q, smp_affinity_list %q", file, text, got, list)
		}
		before := counts(irq)
		raise(e, each)
		after := counts(irq)
		for c := range harts {
			want := 0
			if c == h {
				want = each
			}
			if after[c]-before[c] != want {
				fail("moved to hart %d: hart %d took %d of %d interrupts (%v -> %v)", h, c, after[c]-before[c], each, before, after)
			}
		}
		fmt.Printf("affinity ok: hart %d took all %d interrupts\n", h, each)
	}
	for _, bad := range []struct{ file, text string }{
		{"smp_affinity", "0\n"}, {"smp_affinity", "10\n"}, {"smp_affinity", "zz\n"}, {"smp_affinity", "\n"},
		{"smp_affinity_list", "4\n"}, {"smp_affinity_list", "2-1\n"}, {"smp_affinity_list", "x\n"},
	} {
		if err := write(dir+bad.file, bad.text); !errors.Is(err, syscall.EINVAL) {
			fail("write %q to %s: %v, want EINVAL", bad.text, bad.file, err)
		}
	}
	if got := read(dir + "smp_affinity"); got != "1\n" {
		fail("affinity %q after bad writes, want \"1\\n\"", got)
	}
	// Several harts: the line goes to the first of them (Linux's PLIC driver).
	if err := write(dir+"smp_affinity", "c\n"); err != nil {
		fail("write c: %v", err)
	}
	before := counts(irq)
	raise(e, each)
	if after := counts(irq); after[2]-before[2] != each {
		fail("mask c: hart 2 took %d of %d (%v -> %v)", after[2]-before[2], each, before, after)
	}
	fmt.Println("affinity ok: bad masks EINVAL; mask c goes to hart 2")
	fmt.Println("PASS uioirq")
}
