package qemu

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"gometal.dev/gometal/internal/machine"
)

// Stdio connects the guest console. Passing *os.File values (os.Stdin,
// os.Stdout) lets QEMU inherit the descriptors directly: nothing is buffered
// in between, and QEMU can put an interactive terminal into raw mode.
type Stdio struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Ports are QEMU's ends of the program's stdin/stdout/stderr and
	// signal sockets (Config.StdioPorts): QEMU inherits them as
	// descriptors 3, 4, 5, 6.
	Ports []*os.File
	// Started, if set, runs once QEMU has started (relays begin then).
	Started func()
}

// RunOptions controls the lifetime of a run.
type RunOptions struct {
	// Timeout stops QEMU after this long; 0 means no limit.
	Timeout time.Duration
	// Signals, if set, delivers signals the caller received (SIGINT, SIGTERM)
	// to forward to QEMU, so that the guest stops when we are asked to.
	Signals <-chan os.Signal
	// Guest, if set, passes each signal from Signals to the program in the
	// guest instead (a kernel that listens for them: gometal's signal
	// port), and QEMU runs in a process group of its own, so a terminal's
	// Ctrl-C reaches the program once, through us, and never QEMU itself.
	// A stop signal (SIGINT, SIGTERM, SIGQUIT) the program does not end on
	// within StopGrace, or a second stop signal, ends the machine: QEMU is
	// stopped and the result is Interrupted by that signal, as a container
	// runtime does with a program that ignores SIGTERM.
	Guest func(os.Signal) error
	// StopGrace is how long the program has after a stop signal; 0: until
	// a second one.
	StopGrace time.Duration
	// Grace is how long QEMU gets to exit after SIGTERM before SIGKILL.
	// SIGTERM lets QEMU restore the terminal; 0 means 2 seconds.
	Grace time.Duration
}

// Result says how QEMU ended.
type Result struct {
	// ExitCode is QEMU's exit status, or 128+signal if it was killed.
	// gometal's kernel makes QEMU's status the program's exit status.
	ExitCode int
	// TimedOut is set when Timeout expired and QEMU was stopped.
	TimedOut bool
	// Interrupted is the signal that was forwarded to QEMU, if any. QEMU
	// exits 0 when it is stopped by a signal, so callers should report
	// 128+Interrupted instead of ExitCode.
	Interrupted os.Signal
}

// Run starts QEMU with cfg and waits for it to exit. An error means cfg is
// invalid or QEMU could not be started or waited for; a guest failure is a
// Result.
func Run(cfg Config, stdio Stdio, opts RunOptions) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	argv := cfg.Args()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio.Stdin, stdio.Stdout, stdio.Stderr
	var status *exitLine
	if cfg.Machine.ExitFor(cfg.Accel) == machine.ExitConsole {
		status = &exitLine{w: stdio.Stdout}
		cmd.Stdout = status
	}
	cmd.ExtraFiles = stdio.Ports
	cmd.SysProcAttr = sysProcAttr(opts.Guest != nil)
	if err := cmd.Start(); err != nil {
		return Result{}, err
	}
	if stdio.Started != nil {
		stdio.Started()
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	res, err := supervise(cmd.Process, done, opts)
	if status != nil && err == nil {
		res = status.apply(res)
	}
	return res, err
}

// supervise waits for the process while enforcing the timeout and
// forwarding signals. It is separate from Run so that it reads as the
// policy it is: the first of exit, timeout or signal decides.
func supervise(p *os.Process, done <-chan error, opts RunOptions) (Result, error) {
	var res Result
	var timeout <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var kill <-chan time.Time
	grace := opts.Grace
	if grace == 0 {
		grace = 2 * time.Second
	}
	var stopping os.Signal // the stop signal the guest was given
	var stopGrace <-chan time.Time
	stop := func(sig os.Signal) {
		res.Interrupted = sig
		p.Signal(syscall.SIGTERM)
		if kill == nil {
			kill = time.After(grace)
		}
	}
	for {
		select {
		case err := <-done:
			return finish(res, err)
		case <-timeout:
			res.TimedOut, timeout = true, nil
			p.Signal(syscall.SIGTERM)
			kill = time.After(grace)
		case sig := <-opts.Signals:
			switch {
			case opts.Guest == nil:
				res.Interrupted = sig
				p.Signal(sig)
				if kill == nil {
					kill = time.After(grace)
				}
			case !isStop(sig):
				opts.Guest(sig)
			case stopping != nil:
				stop(sig) // a second stop signal: the machine goes now
			default:
				stopping = sig
				if opts.Guest(sig) != nil {
					stop(sig) // the guest cannot be told: stop it as before
				} else if opts.StopGrace > 0 {
					stopGrace = time.After(opts.StopGrace)
				}
			}
		case <-stopGrace:
			stopGrace = nil
			stop(stopping)
		case <-kill:
			p.Kill()
			kill = nil
		}
	}
}

// isStop reports whether sig asks a program to stop (and so starts the
// grace period when it goes to the guest); SIGHUP, SIGUSR1 and SIGUSR2
// often ask a server to reload or report instead.
func isStop(sig os.Signal) bool {
	return sig == syscall.SIGINT || sig == syscall.SIGTERM || sig == syscall.SIGQUIT
}

// finish turns Wait's error into an exit code.
func finish(res Result, err error) (Result, error) {
	if err == nil {
		return res, nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return res, err
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode = 128 + int(ws.Signal())
	} else {
		res.ExitCode = exit.ExitCode()
	}
	return res, nil
}
