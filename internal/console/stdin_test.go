package console

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestGatedInputWaitsForGate(t *testing.T) {
	gate := make(chan struct{})
	r, stop, err := GatedInput(strings.NewReader("hello"), gate)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	select {
	case s := <-got:
		t.Fatalf("read %q before the gate opened", s)
	case <-time.After(50 * time.Millisecond):
	}
	close(gate)
	if s := <-got; s != "hello\x04" {
		t.Errorf("read %q, want hello and the end-of-input byte", s)
	}
}

func TestGatedInputStop(t *testing.T) {
	r, stop, err := GatedInput(strings.NewReader("x"), make(chan struct{}))
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := r.Read(make([]byte, 1)); err == nil {
		t.Error("read from a stopped pipe succeeded")
	}
}
