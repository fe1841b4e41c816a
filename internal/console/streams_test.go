package console

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

func TestKernelOptions(t *testing.T) {
	dir := t.TempDir()
	a, _ := os.Create(filepath.Join(dir, "a"))
	b, _ := os.Create(filepath.Join(dir, "b"))
	defer a.Close()
	defer b.Close()
	if got := KernelOptions(a, a, b); got != nil {
		t.Errorf("files, stderr apart: %q, want none", got)
	}
	if got, want := KernelOptions(nil, b, b), []string{"stderr=stdout"}; !reflect.DeepEqual(got, want) {
		t.Errorf("stdout and stderr one file: %q, want %q", got, want)
	}
}

// TestStreamsRelay plays QEMU's side of the three sockets: it gets stdin
// and then end of file, and what it writes reaches stdout and stderr.
func TestStreamsRelay(t *testing.T) {
	var out, errb strings.Builder
	s, err := NewStreams(strings.NewReader("input\x04\x00bytes"), &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	qemu := s.QEMU
	dup := make([]*os.File, len(qemu))
	for i, f := range qemu {
		fd, _ := dupFd(f)
		dup[i] = fd
	}
	s.Start() // closes the originals, as after QEMU started
	got, _ := io.ReadAll(dup[0])
	if string(got) != "input\x04\x00bytes" {
		t.Errorf("stdin port got %q", got)
	}
	dup[1].WriteString("to stdout")
	dup[2].WriteString("to stderr")
	if err := s.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("Signal: %v", err)
	}
	sig := make([]byte, 4)
	if n, _ := dup[3].Read(sig); n != 1 || sig[0] != byte(syscall.SIGTERM) {
		t.Errorf("signal port got %q", sig[:n])
	}
	for _, f := range dup {
		f.Close()
	}
	s.Wait()
	if out.String() != "to stdout" || errb.String() != "to stderr" {
		t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
	}
}

func dupFd(f *os.File) (*os.File, error) {
	c, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var nf *os.File
	c.Control(func(fd uintptr) {
		if n, err := syscall.Dup(int(fd)); err == nil {
			nf = os.NewFile(uintptr(n), f.Name())
		}
	})
	return nf, nil
}
