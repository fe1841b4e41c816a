package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gometal.dev/gometal/internal/qemu"
)

func TestDispatchErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"frob"}, "gometal: unknown command \"frob\"\nrun 'gometal -h' for usage\n"},
		{[]string{"run", "-bogus"}, "gometal: run: flag provided but not defined: -bogus\nrun 'gometal run -h' for usage\n"},
		{[]string{"run"}, "gometal: run: no package or binary given\nrun 'gometal run -h' for usage\n"},
		{[]string{"run", "-cores", "0", "x"}, "gometal: run: invalid value \"0\" for flag -cores: want a number of CPUs, 1 to 64\n"},
		{[]string{"run", "-sched", "fifo", "x"}, "-sched \"fifo\": want one of round-robin"},
		{[]string{"run", "-mem", "lots", "x"}, "-mem: invalid memory size"},
		{[]string{"run", "-virtio", "isa", "x"}, "gometal: run: -virtio \"isa\": want mmio or pci\n"},
		{[]string{"exec", "-virtio", "usb", "x"}, "-virtio \"usb\": want mmio or pci"},
		{[]string{"run", "-add", "x:rel", "x"}, "must be absolute"},
		{[]string{"run", "./no/such/prog"}, "gometal: ./no/such/prog: no such file or directory\n"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := dispatch(c.args, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("gometal %q: exit %d, stderr %q; want 2, %q", c.args, code, stderr.String(), c.want)
		}
	}
}

func TestHelpMentionsEverything(t *testing.T) {
	var out bytes.Buffer
	if code := dispatch([]string{"-h"}, &out, &out); code != 0 {
		t.Fatalf("gometal -h: exit %d", code)
	}
	for _, c := range commands {
		if !strings.Contains(out.String(), c.name) {
			t.Errorf("overview does not list %s", c.name)
		}
	}
	var run bytes.Buffer
	runUsage(&run)
	fs, _ := newRunFlagSet()
	for _, name := range []string{"cores", "mem", "timeout", "v", "env", "add", "kernel", "kernel-args", "sched", "gdb", "qemu"} {
		if fs.Lookup(name) == nil || !strings.Contains(run.String(), "-"+name) {
			t.Errorf("run help lacks -%s", name)
		}
	}
}

func TestCmdline(t *testing.T) {
	f, err := parseRunFlags([]string{"-v", "-sched", "random", "-env", "A=b c", "-kernel-args", "debug",
		"prog", "-x", "two words", ""})
	if err != nil {
		t.Fatal(err)
	}
	want := `verbose sched=random "A=b c" debug -- -x "two words" ""`
	if got := cmdline(f); got != want {
		t.Errorf("cmdline = %s\nwant      %s", got, want)
	}
}

func TestEnvPair(t *testing.T) {
	lookup := func(k string) (string, bool) { return "/home/me", k == "HOME" }
	for in, want := range map[string]string{"A=1": "A=1", "A=": "A=", "HOME": "HOME=/home/me", "A=x=y": "A=x=y"} {
		if got, err := envPair(in, lookup); got != want || err != nil {
			t.Errorf("envPair(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "=x", "UNSET", "A B=1"} {
		if _, err := envPair(bad, lookup); err == nil {
			t.Errorf("envPair(%q) succeeded", bad)
		}
	}
}

func TestClassify(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "prog")
	os.WriteFile(bin, []byte("x"), 0o755)
	cases := map[string]programKind{
		bin: prebuilt, dir: goPackage, "main.go": goPackage,
		"example.com/cmd/tool": goPackage, "gometal.dev/gometal/examples/hello": goPackage,
	}
	for in, want := range cases {
		if got, err := classify(in); got != want || err != nil {
			t.Errorf("classify(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, missing := range []string{"prog", "./prog", "../x/y", filepath.Join(dir, "nope")} {
		if _, err := classify(missing); err == nil || !strings.HasSuffix(err.Error(), "no such file or directory") {
			t.Errorf("classify(%q): err = %v", missing, err)
		}
	}
}

func TestExitStatusOf(t *testing.T) {
	cases := []struct {
		res  qemu.Result
		code int
		msg  string
	}{
		{qemu.Result{}, 0, ""},
		{qemu.Result{ExitCode: 3}, 3, ""},
		{qemu.Result{ExitCode: 101}, 101, ""},
		{qemu.Result{TimedOut: true, ExitCode: 0}, 124, "gometal: timed out after 30s\n"},
		{qemu.Result{Interrupted: syscall.SIGINT}, 130, ""},
		{qemu.Result{Interrupted: syscall.SIGTERM}, 143, ""},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		code := report(&stderr, exitStatusOf(c.res, 30*time.Second))
		if code != c.code || stderr.String() != c.msg {
			t.Errorf("%+v: exit %d, %q; want %d, %q", c.res, code, stderr.String(), c.code, c.msg)
		}
	}
}
