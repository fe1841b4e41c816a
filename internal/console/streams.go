package console

// Streams: the guest program's stdin, stdout and stderr, each on its own
// port of a virtio console (QEMU's virtserialport 1, 2 and 3), connected
// to gometal's own three streams through socket pairs. QEMU gets one end
// of each pair as an inherited descriptor (-chardev socket,fd=N); relays
// copy between the other ends and our stdio. Closing our end of the stdin
// pair when our stdin ends makes QEMU close the port, which the guest
// kernel reads as end of file: any bytes, any length, then a real EOF.
// A fourth port carries signals to the program: one byte, the signal's
// number, each (the kernel's stdio/hostsig.rs sends it to the program).

import (
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
)

// Streams relays the three standard streams of one guest program.
type Streams struct {
	// QEMU holds QEMU's ends, in port order (stdin, stdout, stderr,
	// signals): pass them as its descriptors 3, 4, 5, 6 (exec.Cmd.ExtraFiles).
	QEMU []*os.File
	ours []*os.File

	stdin          io.Reader
	stdout, stderr io.Writer
	outputs        sync.WaitGroup
	quit           chan struct{}
}

// NewStreams makes the socket pairs for stdin, stdout, stderr and signals.
func NewStreams(stdin io.Reader, stdout, stderr io.Writer) (*Streams, error) {
	s := &Streams{stdin: stdin, stdout: stdout, stderr: stderr, quit: make(chan struct{})}
	for _, name := range []string{"stdin", "stdout", "stderr", "signal"} {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err != nil {
			s.Close()
			return nil, err
		}
		// Only QEMU, and only through ExtraFiles, gets these.
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
		s.ours = append(s.ours, os.NewFile(uintptr(fds[0]), "gometal-"+name))
		s.QEMU = append(s.QEMU, os.NewFile(uintptr(fds[1]), "qemu-"+name))
	}
	return s, nil
}

// Start begins relaying once QEMU runs (it has its own copies of its ends
// by then, so ours are closed: QEMU's exit is then our relays' EOF).
func (s *Streams) Start() {
	for _, f := range s.QEMU {
		f.Close()
	}
	s.outputs.Add(2)
	go s.relayOut(s.ours[1], s.stdout)
	go s.relayOut(s.ours[2], s.stderr)
	go func() {
		// A terminal or a pipe that never ends leaves this copy blocked
		// when the program is done; it is abandoned then.
		io.Copy(s.ours[0], readerUntil(s.stdin, s.quit))
		// Half-close: QEMU reads what is still buffered, then end of file,
		// and closes the port, which the program reads as EOF. A full close
		// would raise POLLHUP on QEMU's end, and QEMU drops the connection
		// on a hangup with the unread bytes still in the socket.
		syscall.Shutdown(int(s.ours[0].Fd()), syscall.SHUT_WR)
	}()
}

// Signal passes sig to the program (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
// SIGUSR1, SIGUSR2; the kernel ignores others).
func (s *Streams) Signal(sig os.Signal) error {
	n, ok := sig.(syscall.Signal)
	if !ok || n <= 0 || n > 64 {
		return errors.New("not a signal the program can be sent")
	}
	_, err := s.ours[3].Write([]byte{byte(n)})
	return err
}

// relayOut copies one output port to w. If w fails (a reader that went
// away, as with `| head`), the port is closed, so the program's next write
// fails with EPIPE, as it would on Linux.
func (s *Streams) relayOut(port *os.File, w io.Writer) {
	defer s.outputs.Done()
	io.Copy(w, port)
	port.Close()
}

// Wait returns when both output ports are drained (QEMU has exited).
func (s *Streams) Wait() {
	close(s.quit)
	s.outputs.Wait()
	s.ours[0].Close()
	s.ours[3].Close()
}

// Close releases every descriptor (for a QEMU that never started).
func (s *Streams) Close() {
	for _, f := range append(s.ours, s.QEMU...) {
		f.Close()
	}
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	return isTerminal(f.Fd())
}

// KernelOptions tells the guest kernel which of the three streams are
// terminals (isatty) and whether stderr is the same file as stdout, so
// that it sends both down one port and their order survives.
func KernelOptions(stdin, stdout, stderr *os.File) []string {
	var ttys []string
	for i, f := range []*os.File{stdin, stdout, stderr} {
		if f != nil && IsTerminal(f) {
			ttys = append(ttys, string(rune('0'+i)))
		}
	}
	var opts []string
	if len(ttys) > 0 {
		opts = append(opts, "tty="+strings.Join(ttys, ","))
	}
	if sameFile(stdout, stderr) {
		opts = append(opts, "stderr=stdout")
	}
	return opts
}

func sameFile(a, b *os.File) bool {
	if a == nil || b == nil {
		return false
	}
	sa, errA := a.Stat()
	sb, errB := b.Stat()
	return errors.Join(errA, errB) == nil && os.SameFile(sa, sb)
}

// readerUntil reads r until quit is closed (checked between reads).
func readerUntil(r io.Reader, quit <-chan struct{}) io.Reader {
	return readerFunc(func(p []byte) (int, error) {
		select {
		case <-quit:
			return 0, io.EOF
		default:
		}
		return r.Read(p)
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
