package tests

// go test -exec 'gometal exec' shows the test its module at its own path:
// tests/testdata/execmod/pkg's tests read testdata/, ../sibling and
// ../testdata by relative and absolute paths, under each -module mode;
// what a nested module looks like and what a write into the package
// directory does differ by mode, and the host checks its side.

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755)
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestExecModule(t *testing.T) { parallelArches(t, testExecModule) }

func testExecModule(t *testing.T, a *arch) {
	t.Parallel()
	modes := []struct {
		module, nested, write string
		onHost                bool // the file the test wrote is in the host's tree
	}{
		{"", "visible", "EROFS", false}, // the default: a read-only share
		{"rw", "visible", "ok", true},
		{"pack", "absent", "ok", false},
	}
	for _, m := range modes {
		mod := filepath.Join(t.TempDir(), "execmod")
		copyTree(t, filepath.Join(modRoot, "tests", "testdata", "execmod"), mod)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-v", "-exec", gometal+" exec", ".")
		cmd.Dir = filepath.Join(mod, "pkg")
		cmd.Env = execEnv(a, "-cores 2 -module "+or(m.module, "auto"))
		bootSem <- struct{}{}
		out, err := cmd.CombinedOutput()
		<-bootSem
		cancel()
		name := "-module " + or(m.module, "(default)")
		if err != nil {
			t.Errorf("%s: go test -exec 'gometal exec': %v\n%s", name, err, tail(string(out), tailLines))
			continue
		}
		for _, want := range []string{"--- PASS: TestRelativePaths", "--- PASS: TestAbsolutePaths", "module at " + mod,
			"nested module: " + m.nested, "write into the package directory: " + m.write, "ok  \texample.com/execmod/pkg"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("%s: output lacks %q:\n%s", name, want, tail(string(out), tailLines))
			}
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "pkg_test.go:") {
				t.Logf("%s: %s", name, strings.TrimSpace(l))
			}
		}
		_, statErr := os.Stat(filepath.Join(mod, "pkg", "written-by-test.txt"))
		if onHost := statErr == nil; onHost != m.onHost {
			t.Errorf("%s: the test's file on the host: %v; want %v", name, onHost, m.onHost)
		}
	}
}

// execEnv is the environment of `go test -exec 'gometal exec'` building
// for a, with GOMETAL_EXEC_FLAGS set to flags.
func execEnv(a *arch, flags string) []string {
	return append(append(gometalEnv(), a.machine.Arch.BuildEnv()...), "GOTOOLCHAIN=local", "GOFLAGS=", "GOMETAL_EXEC_FLAGS="+flags)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestExecProfile: `go test -exec 'gometal exec' -cpuprofile -coverprofile
// -trace` writes the three files where the go command expects them (its
// working directory, inside the module's share, which becomes writable
// for it; the raw coverage data in the go command's work directory), and
// `go tool pprof` finds the busy function in the CPU profile.
func TestExecProfile(t *testing.T) { parallelArches(t, testExecProfile) }

func testExecProfile(t *testing.T, a *arch) {
	t.Parallel()
	mod := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/prof\n\ngo 1.26\n",
		"prof.go": `package prof

// Busy spins for the CPU profile.
func Busy(n int) int {
	x := 1
	for i := 0; i < n; i++ {
		x = x*31 + i
	}
	return x
}
`,
		"prof_test.go": `package prof

import (
	"testing"
	"time"
)

func TestBusy(t *testing.T) {
	end := time.Now().Add(700 * time.Millisecond)
	for time.Now().Before(end) {
		Busy(100000)
	}
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-exec", gometal+" exec",
		"-cpuprofile", "cpu.out", "-coverprofile", "cover.out", "-trace", "trace.out", ".")
	cmd.Dir = mod
	cmd.Env = execEnv(a, "-cores 2")
	bootSem <- struct{}{}
	out, err := cmd.CombinedOutput()
	<-bootSem
	if err != nil {
		t.Fatalf("go test -exec 'gometal exec' -cpuprofile ...: %v\n%s", err, tail(string(out), tailLines))
	}
	for _, name := range []string{"cpu.out", "cover.out", "trace.out"} {
		if st, err := os.Stat(filepath.Join(mod, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s on the host: %v (want a non-empty file)\n%s", name, err, out)
		}
	}
	if cover, _ := os.ReadFile(filepath.Join(mod, "cover.out")); !strings.HasPrefix(string(cover), "mode: ") {
		t.Errorf("cover.out: %q", cover)
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", filepath.Join(mod, "prof.test"), filepath.Join(mod, "cpu.out")).CombinedOutput()
	if err != nil || !strings.Contains(string(top), "example.com/prof.Busy") {
		t.Errorf("go tool pprof -top: %v\n%s", err, top)
	}
}
