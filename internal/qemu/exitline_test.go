package qemu

import (
	"bytes"
	"testing"
)

func TestExitLine(t *testing.T) {
	for _, c := range []struct {
		name   string
		chunks []string
		res    Result
		want   int
	}{
		{"status", []string{"hello\r\n", "gometal: exit status 3; powering off\r\n"}, Result{}, 3},
		{"split over writes", []string{"gometal: exit st", "atus 42; halted\n"}, Result{}, 42},
		{"last line wins", []string{"gometal: exit status 9; powering off\n", "gometal: exit status 0; powering off\n"}, Result{}, 0},
		{"no line", []string{"gometal: kernel panic\n"}, Result{}, 0},
		{"not a number", []string{"gometal: exit status x; powering off\n"}, Result{}, 0},
		{"out of range", []string{"gometal: exit status 300; powering off\n"}, Result{}, 0},
		{"unterminated", []string{"gometal: exit status 5; powering off"}, Result{}, 0},
		{"QEMU's own status", []string{"gometal: exit status 5; powering off\n"}, Result{ExitCode: 1}, 1},
		{"timeout", []string{"gometal: exit status 5; powering off\n"}, Result{TimedOut: true}, 0},
	} {
		var out bytes.Buffer
		e := &exitLine{w: &out}
		for _, s := range c.chunks {
			if n, err := e.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("%s: Write = %d, %v", c.name, n, err)
			}
		}
		if got := e.apply(c.res).ExitCode; got != c.want {
			t.Errorf("%s: exit code %d, want %d", c.name, got, c.want)
		}
		var all string
		for _, s := range c.chunks {
			all += s
		}
		if out.String() != all {
			t.Errorf("%s: console changed: %q", c.name, out.String())
		}
	}
}

func TestWithoutExitLines(t *testing.T) {
	var out bytes.Buffer
	w := WithoutExitLines(&out)
	in := "gometal: note\ngometal: exit status 3; powering off\r\nlast"
	if n, err := w.Write([]byte(in)); n != len(in) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if want := "gometal: note\nlast"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
