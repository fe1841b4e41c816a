package initramfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// hostTree makes prog plus a directory tree with a nested file and symlink.
func hostTree(t *testing.T) (prog, tree string) {
	dir := t.TempDir()
	prog = filepath.Join(dir, "prog")
	tree = filepath.Join(dir, "tree")
	must(t, os.WriteFile(prog, []byte("binary"), 0o755))
	must(t, os.MkdirAll(filepath.Join(tree, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(tree, "sub", "f.txt"), []byte("data"), 0o644))
	must(t, os.Symlink("sub/f.txt", filepath.Join(tree, "link")))
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	must(t, os.Chtimes(filepath.Join(tree, "sub", "f.txt"), old, old))
	return prog, tree
}

func TestCreate(t *testing.T) {
	prog, tree := hostTree(t)
	out := filepath.Join(t.TempDir(), "initrd.cpio")
	must(t, Create(out, prog, []Mapping{
		{Host: tree, Guest: "/testdata"},
		{Host: prog, Guest: "/bin/copy"},
	}))
	data, err := os.ReadFile(out)
	must(t, err)
	got := map[string]string{}
	for _, e := range parse(t, data) {
		got[e.name] = string(e.data)
		// A host file keeps its time (net/http's Last-Modified needs it);
		// the program (generated) carries the epoch.
		want, check := map[string]uint32{
			"testdata/sub/f.txt": uint32(time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC).Unix()),
			"init":               0,
		}[e.name]
		if check && e.mtime != want {
			t.Errorf("%s: mtime %d, want %d", e.name, e.mtime, want)
		}
	}
	want := map[string]string{
		"init": "binary", "testdata": "", "testdata/sub": "",
		"testdata/sub/f.txt": "data", "testdata/link": "sub/f.txt",
		"bin": "", "bin/copy": "binary",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("archive holds %v\nwant %v", got, want)
	}
}

func TestCreateMissingHost(t *testing.T) {
	prog, _ := hostTree(t)
	out := filepath.Join(t.TempDir(), "initrd.cpio")
	err := Create(out, prog, []Mapping{{Host: "/no/such/dir", Guest: "/x"}})
	if err == nil || !strings.Contains(err.Error(), "/no/such/dir") {
		t.Errorf("Create with missing host path: err = %v", err)
	}
}

// TestCpioTool checks the archive against GNU cpio, an independent reader.
func TestCpioTool(t *testing.T) {
	cpio, err := exec.LookPath("cpio")
	if err != nil {
		t.Skip("cpio not installed")
	}
	prog, tree := hostTree(t)
	out := filepath.Join(t.TempDir(), "initrd.cpio")
	must(t, Create(out, prog, []Mapping{{Host: tree, Guest: "/testdata"}}))
	f, err := os.Open(out)
	must(t, err)
	defer f.Close()
	cmd := exec.Command(cpio, "-it", "--quiet")
	cmd.Stdin = f
	listing, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cpio -it: %v\n%s", err, listing)
	}
	got := strings.Fields(string(listing))
	sort.Strings(got)
	want := []string{"init", "testdata", "testdata/link", "testdata/sub", "testdata/sub/f.txt"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cpio -it lists %q, want %q", got, want)
	}
}
