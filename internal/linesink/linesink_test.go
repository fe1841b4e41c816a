package linesink

import (
	"bytes"
	"strings"
	"testing"
)

// Two streams writing pieces of lines in turn never split each other's lines.
func TestLinesStayWhole(t *testing.T) {
	var out bytes.Buffer
	s := New(&out)
	a, b := s.Stream(), s.Stream()
	a.Write([]byte(`gometal-stats: {"policy":`))
	b.Write([]byte("arith: done\nPASS ar"))
	a.Write([]byte(`"affinity"}` + "\nlast"))
	b.Write([]byte("ith\n"))
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	want := []string{"arith: done", `gometal-stats: {"policy":"affinity"}`, "PASS arith", "last"}
	if got := strings.Split(out.String(), "\n"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}
