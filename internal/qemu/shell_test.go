package qemu

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestShellQuote(t *testing.T) {
	argv := []string{"qemu", "-append", `verbose -- "a b" it's`, "", "-m", "256M"}
	got := ShellQuote(argv)
	want := `qemu -append 'verbose -- "a b" it'\''s' '' -m 256M`
	if got != want {
		t.Errorf("ShellQuote = %s\nwant        %s", got, want)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to check the quoting with")
	}
	// Let the shell split the quoted line back into words.
	out, err := exec.Command(sh, "-c", `eval "set -- $1"; for a in "$@"; do printf '%s\0' "$a"; done`, "sh", got).Output()
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !reflect.DeepEqual(words, argv) {
		t.Errorf("shell splits %s into %q, want %q", got, words, argv)
	}
}
