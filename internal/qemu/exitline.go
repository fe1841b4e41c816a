package qemu

// Reading the exit status from the console, for a machine where no device
// carries it to QEMU (machine.ExitConsole: arm64 under KVM or HVF, where
// semihosting does not work, and boards). gometal's kernel ends such a
// machine with the line "gometal: exit status N; powering off" on its
// UART and then powers off, which QEMU reports as exit status 0.

import (
	"bytes"
	"io"
	"strconv"
	"sync"
)

// exitLinePrefix starts the kernel's last line (kernel/src/onexit.rs).
const exitLinePrefix = "gometal: exit status "

// exitLine passes the console through unchanged and remembers the status
// of the last exit line it saw. A line longer than a status line is only
// passed through (the buffer stays small).
type exitLine struct {
	w      io.Writer
	mu     sync.Mutex
	line   []byte
	status int
	seen   bool
}

func (e *exitLine) Write(p []byte) (int, error) {
	e.mu.Lock()
	for _, b := range p {
		switch {
		case b == '\n':
			e.check(bytes.TrimSuffix(e.line, []byte("\r")))
			e.line = e.line[:0]
		case len(e.line) < 80:
			e.line = append(e.line, b)
		}
	}
	e.mu.Unlock()
	if e.w == nil {
		return len(p), nil
	}
	return e.w.Write(p)
}

// check records line's status if it is an exit line: the last one counts
// (a program may print anything on the console before the kernel's own).
func (e *exitLine) check(line []byte) {
	rest, ok := bytes.CutPrefix(line, []byte(exitLinePrefix))
	if !ok {
		return
	}
	num, _, ok := bytes.Cut(rest, []byte(";"))
	n, err := strconv.Atoi(string(num))
	if !ok || err != nil || n < 0 || n > 255 {
		return
	}
	e.status, e.seen = n, true
}

// apply makes the console's status the result's when QEMU itself exited
// 0 on its own (a power-off): a timeout or a signal keeps its meaning.
func (e *exitLine) apply(res Result) Result {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.seen && res.ExitCode == 0 && !res.TimedOut && res.Interrupted == nil {
		res.ExitCode = e.status
	}
	return res
}

// WithoutExitLines forwards whole lines (a linesink's writes) to w minus
// the kernel's exit line: where gometal passes the status on as its own
// (`gometal run` under KVM), the line would only be noise after every run.
func WithoutExitLines(w io.Writer) io.Writer { return exitLineDropper{w} }

type exitLineDropper struct{ w io.Writer }

func (d exitLineDropper) Write(p []byte) (int, error) {
	kept := make([]byte, 0, len(p))
	for rest := p; len(rest) > 0; {
		line, tail, found := bytes.Cut(rest, []byte("\n"))
		if !bytes.HasPrefix(line, []byte(exitLinePrefix)) {
			kept = append(kept, line...)
			if found {
				kept = append(kept, '\n')
			}
		}
		rest = tail
	}
	if _, err := d.w.Write(kept); err != nil {
		return 0, err
	}
	return len(p), nil
}
