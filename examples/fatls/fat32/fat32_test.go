package fat32

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// image makes a FAT32 image with mkfs.fat and puts files on it with mcopy
// (Debian's dosfstools and mtools; `make deps` installs them).
func image(t *testing.T, files map[string]string) string {
	for _, tool := range []string{"mkfs.fat", "mcopy", "mtype"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (make deps installs dosfstools and mtools)", tool)
		}
	}
	dir := t.TempDir()
	img := filepath.Join(dir, "fat.img")
	run(t, "mkfs.fat", "-F", "32", "-C", img, "40960")
	for name, content := range files {
		src := filepath.Join(dir, "src-"+strings.ReplaceAll(name, "/", "_"))
		if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, "mcopy", "-i", img, src, "::"+name)
	}
	return img
}

func run(t *testing.T, name string, args ...string) string {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

func TestReadAndCreate(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 5000) // several clusters
	img := image(t, map[string]string{"hello.txt": "hello, FAT\n", "A long file name.data": big})
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fs, err := Open(f)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := fs.ReadDir(0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "hello.txt") || !strings.Contains(got, "A long file name.data") {
		t.Errorf("root lists %q", got)
	}
	if b, err := fs.ReadFile("hello.txt"); err != nil || string(b) != "hello, FAT\n" {
		t.Errorf("hello.txt = %q, %v", b, err)
	}
	if b, err := fs.ReadFile("A long file name.data"); err != nil || string(b) != big {
		t.Errorf("long file: %d bytes, %v", len(b), err)
	}
	payload := bytes.Repeat([]byte("written by fat32\n"), 1000)
	if err := fs.Create("FROMGO.TXT", payload); err != nil {
		t.Fatal(err)
	}
	if err := fs.Create("FROMGO.TXT", payload); err == nil {
		t.Error("creating an existing file succeeded")
	}
	if err := fs.Create("not valid.txt", nil); err == nil {
		t.Error("a name with a space was accepted")
	}
	f.Sync()
	if got := run(t, "mtype", "-i", img, "::FROMGO.TXT"); got != string(payload) {
		t.Errorf("mtype read back %d bytes, want %d", len(got), len(payload))
	}
	if _, err := exec.LookPath("fsck.fat"); err == nil {
		run(t, "fsck.fat", "-n", img)
	}
}
