package goexec

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gometal.dev/gometal/internal/initramfs"
)

// writeTree creates files (name → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// moduleTree is a module with a package two levels down that reads
// ../../testdata, a nested module, VCS metadata and a build output.
func moduleTree(t *testing.T) (root, pkg string) {
	root = filepath.Join(t.TempDir(), "mod")
	writeTree(t, root, map[string]string{
		"go.mod":                  "module example.com/m",
		"testdata/corpus/a.bin":   "corpus",
		"fuzz/seed.txt":           "seed",
		"a/b/b_test.go":           "package b",
		"a/b/testdata/x.txt":      "x",
		"nested/go.mod":           "module example.com/m/nested",
		"nested/big.txt":          "not part of the module",
		".git/HEAD":               "ref",
		"target/release/huge.bin": "build output",
	})
	return root, filepath.Join(root, "a", "b")
}

func TestPackModule(t *testing.T) {
	root, pkg := moduleTree(t)
	var buf bytes.Buffer
	w := initramfs.NewWriter(&buf)
	leftOut := func(p string) bool { return p == filepath.Join(root, "target") }
	st, err := PackModule(w, pkg, root, 1<<20, leftOut)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	got := entries(t, buf.Bytes())
	r := strings.TrimPrefix(filepath.ToSlash(root), "/")
	for name, want := range map[string]string{
		r + "/go.mod":                "file:module example.com/m",
		r + "/testdata/corpus/a.bin": "file:corpus",
		r + "/fuzz/seed.txt":         "file:seed",
		r + "/a/b/b_test.go":         "file:package b",
		r + "/a/b/testdata/x.txt":    "file:x",
	} {
		if got[name] != want {
			t.Errorf("%s: got %q, want %q", name, got[name], want)
		}
	}
	for name := range got {
		for _, out := range []string{"/nested", "/.git", "/target"} {
			if strings.Contains(name, out) {
				t.Errorf("%s should have been left out", name)
			}
		}
	}
	if st.Files != 5 || st.SkippedFiles != 0 {
		t.Errorf("stats %+v; want 5 files, none skipped", st)
	}
}

// With a budget smaller than the module, the package directory is whole
// and the warning names the cap and a file it left out.
func TestPackModuleCapKeepsPackageDir(t *testing.T) {
	root, pkg := moduleTree(t)
	writeTree(t, root, map[string]string{"aaa/large.bin": strings.Repeat("L", 100)})
	var buf bytes.Buffer
	w := initramfs.NewWriter(&buf)
	st, err := PackModule(w, pkg, root, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	got := entries(t, buf.Bytes())
	p := strings.TrimPrefix(filepath.ToSlash(pkg), "/")
	if got[p+"/b_test.go"] == "" || got[p+"/testdata/x.txt"] == "" {
		t.Errorf("the package directory is incomplete: %v", got)
	}
	warn := strings.Join(st.Warnings("module "+root, 50), "\n")
	if st.SkippedFiles == 0 || !strings.Contains(warn, "-max-dir") || !strings.Contains(warn, "large.bin") {
		t.Errorf("stats %+v, warning %q", st, warn)
	}
}

// A module far over the budget is not walked to its end.
func TestPackModuleStopsWalkingWhenFull(t *testing.T) {
	root, pkg := moduleTree(t)
	files := map[string]string{}
	for i := range maxSkipped + 50 {
		files[filepath.Join("zz", strconv.Itoa(i))] = "0123456789"
	}
	writeTree(t, root, files)
	var buf bytes.Buffer
	w := initramfs.NewWriter(&buf)
	st, err := PackModule(w, pkg, root, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	warn := strings.Join(st.Warnings("module "+root, 64), "\n")
	if !st.StoppedEarly || st.SkippedFiles != maxSkipped || !strings.Contains(warn, "at least 1000 files") {
		t.Errorf("stats %+v, warning %q", st, warn)
	}
}

func TestModuleDir(t *testing.T) {
	root, pkg := moduleTree(t)
	if got := ModuleDir(pkg); got != root {
		t.Errorf("ModuleDir(%s) = %q, want %q", pkg, got, root)
	}
	if got := ModuleDir(filepath.Join(root, "nested")); got != filepath.Join(root, "nested") {
		t.Errorf("ModuleDir(nested) = %q", got)
	}
	if got := ModuleDir(t.TempDir()); got != "" && !strings.HasPrefix(root, got) {
		t.Errorf("ModuleDir(a directory without go.mod) = %q", got)
	}
	if got := ModuleDir("/"); got != "" {
		t.Errorf("ModuleDir(/) = %q, want none", got)
	}
}

func TestGitIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, _ := moduleTree(t)
	writeTree(t, root, map[string]string{".gitignore": "/target/\n*.log\n", "a/run.log": "log", "kept.txt": "k"})
	os.RemoveAll(filepath.Join(root, ".git")) // moduleTree's is a fake
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	ignored := GitIgnored(root)
	if ignored == nil {
		t.Fatal("GitIgnored found nothing")
	}
	for name, want := range map[string]bool{"target": true, "a/run.log": true, "kept.txt": false, "testdata": false, "a/b": false} {
		if got := ignored(filepath.Join(root, name)); got != want {
			t.Errorf("ignored(%s) = %v, want %v", name, got, want)
		}
	}
	if GitIgnored(t.TempDir()) != nil {
		t.Error("GitIgnored outside a work tree: want nil")
	}
}
