package goexec

import (
	"reflect"
	"testing"
)

func TestOutputDirs(t *testing.T) {
	args := []string{
		"-test.paniconexit0", "-test.timeout=10m0s",
		"-test.cpuprofile=cpu.out", "-test.outputdir=/home/u/mod/",
		"-test.gocoverdir", "/tmp/go-build1/b001/gocoverdir",
		"-test.trace=/abs/traces/t.out", "-test.memprofile=/home/u/mod/mem.out",
		"--", "-test.outputdir=/not/a/flag",
	}
	want := []string{"/home/u/mod", "/tmp/go-build1/b001/gocoverdir", "/abs/traces"}
	if got := OutputDirs(args); !reflect.DeepEqual(got, want) {
		t.Errorf("OutputDirs = %q, want %q", got, want)
	}
	if got := OutputDirs([]string{"-test.v", "-test.run=X"}); got != nil {
		t.Errorf("no output flags: %q", got)
	}
}
