package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func noEnv(string) string { return "" }

func TestExecFlagsDefaults(t *testing.T) {
	f, err := parseExecFlags([]string{"/tmp/x.test", "-test.v=true", "-test.timeout=10m0s"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if f.cores != 4 || f.mem != defaultExecMem || f.noModule || f.timeout != 0 || f.maxBytes != 100<<20 {
		t.Errorf("defaults: cores %d mem %s timeout %v max %d", f.cores, f.mem, f.timeout, f.maxBytes)
	}
	if f.binary != "/tmp/x.test" || !reflect.DeepEqual(f.args, []string{"-test.v=true", "-test.timeout=10m0s"}) {
		t.Errorf("binary %q args %q", f.binary, f.args)
	}
}

func TestExecFlagsFromEnvironment(t *testing.T) {
	getenv := func(k string) string {
		if k == "GOMETAL_EXEC_FLAGS" {
			return "-cores 2 -mem 1G -kernel-args 'trace stats'"
		}
		return ""
	}
	// The command line wins over the environment.
	f, err := parseExecFlags([]string{"-cores", "3", "prog", "-cores", "9"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if f.cores != 3 || f.mem != "1G" || f.kernelArgs != "trace stats" {
		t.Errorf("cores %d mem %s kernel-args %q", f.cores, f.mem, f.kernelArgs)
	}
	if !reflect.DeepEqual(f.args, []string{"-cores", "9"}) {
		t.Errorf("program args %q", f.args)
	}
}

func TestExecFlagErrors(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOMETAL_EXEC_FLAGS" {
				return v
			}
			return ""
		}
	}
	cases := []struct {
		args   []string
		getenv func(string) string
		want   string
	}{
		{nil, noEnv, "exec: no binary given"},
		{[]string{"-cores", "0", "p"}, noEnv, `invalid value "0" for flag -cores`},
		{[]string{"-max-dir", "huge", "p"}, noEnv, "-max-dir"},
		{[]string{"-mem", "x", "p"}, noEnv, "-mem"},
		{[]string{"p"}, env("-cores 'two"), "GOMETAL_EXEC_FLAGS: unterminated"},
		{[]string{"p"}, env("-bogus"), "GOMETAL_EXEC_FLAGS: flag provided but not defined"},
		{[]string{"p"}, env("-v prog"), `"prog" is not a flag`},
	}
	for _, c := range cases {
		_, err := parseExecFlags(c.args, c.getenv)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseExecFlags(%q): %v; want %q", c.args, err, c.want)
		}
	}
	if _, err := parseExecFlags([]string{"-h"}, noEnv); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

func TestExecCmdline(t *testing.T) {
	f, err := parseExecFlags([]string{"-env", "X=1", "-kernel-args", "trace", "-sched", "random",
		"prog", "-test.run=^TestA$", "two words"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	environ := []string{"PATH=/bin", "GODEBUG=x=1", "HOME=/h"}
	got := execCmdline(f, "/src/my pkg", environ)
	want := `sched=random "cwd=/src/my pkg" GODEBUG=x=1 HOME=/h X=1 trace -- -test.run=^TestA$ "two words"`
	if got != want {
		t.Errorf("cmdline:\n got %s\nwant %s", got, want)
	}
	if got := execCmdline(f, "/", nil); strings.Contains(got, "cwd=") {
		t.Errorf("cwd=/ should be left to the kernel's default: %s", got)
	}
}

func TestExecRejectsBadBinary(t *testing.T) {
	dir := t.TempDir()
	notELF := filepath.Join(dir, "x.test")
	os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755)
	for _, bin := range []string{notELF, filepath.Join(dir, "missing.test")} {
		var stdout, stderr bytes.Buffer
		if code := dispatch([]string{"exec", bin}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), bin) {
			t.Errorf("exec %s: exit %d, %q", bin, code, stderr.String())
		}
	}
}

func TestExecHelp(t *testing.T) {
	var out bytes.Buffer
	execUsage(&out)
	fs, _ := newExecFlagSet()
	for _, name := range []string{"cores", "mem", "timeout", "v", "env", "add", "kernel", "kernel-args", "max-dir", "no-dir", "module"} {
		if fs.Lookup(name) == nil || !strings.Contains(out.String(), "-"+name) {
			t.Errorf("exec help lacks -%s", name)
		}
	}
	for _, s := range []string{"go test -exec", "GOMETAL_EXEC_FLAGS", "GODEBUG"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("exec help lacks %q", s)
		}
	}
}

// moduleShare: what gometal exec mounts (or packs) for the test's module.
func TestExecModuleShare(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "a", "pkg")
	os.MkdirAll(pkg, 0o755)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n"), 0o644)
	os.WriteFile(filepath.Join(root, "big"), make([]byte, 4096), 0o644)
	spaced := filepath.Join(t.TempDir(), "my mod")
	os.MkdirAll(spaced, 0o755)
	cases := []struct {
		args    []string
		dir     string
		mounted bool
		top     string
		ro      bool
		why     string
	}{
		{nil, pkg, true, root, true, ""},
		{[]string{"-module", "rw"}, pkg, true, root, false, ""},
		{[]string{"-module", "pack"}, pkg, false, "", false, ""},
		{[]string{"-no-module"}, pkg, true, pkg, true, ""},
		{[]string{"-max-dir", "1K"}, pkg, true, root, true, ""}, // a share has no size limit
		{[]string{"-max-dir", "1K", "-module", "ro"}, pkg, true, root, true, ""},
		{[]string{"-mount", root + "/a:/x" + root}, pkg, true, root, true, ""},
		{[]string{"-mount", t.TempDir() + ":" + root + "/a"}, pkg, false, "", false, "overlaps"},
		{nil, spaced, false, "", false, "a space"},
	}
	for _, c := range cases {
		f, err := parseExecFlags(append(c.args, "prog"), noEnv)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		m, ok, why := moduleShare(c.dir, f)
		if ok != c.mounted || (ok && (m.host != c.top || m.guest != c.top || m.readOnly != c.ro || m.cached != c.ro)) || !strings.Contains(why, c.why) {
			t.Errorf("%q in %s: mounted %v %+v, why %q; want mounted %v at %s ro %v, why %q", c.args, c.dir, ok, m, why, c.mounted, c.top, c.ro, c.why)
		}
		if ok && m.tag != fmt.Sprintf("gm%d", len(f.mounts)) {
			t.Errorf("%q: tag %s after %d -mounts", c.args, m.tag, len(f.mounts))
		}
	}
	if _, err := parseExecFlags([]string{"-module", "copy", "prog"}, noEnv); err == nil || !strings.Contains(err.Error(), "-module") {
		t.Errorf("-module copy: %v", err)
	}
}
