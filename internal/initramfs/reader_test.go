package initramfs

import (
	"bytes"
	"fmt"
	"io/fs"
	"strconv"
	"testing"
	"time"
)

// entry is one parsed cpio record.
type entry struct {
	name  string
	ino   uint32
	mode  uint32
	nlink uint32
	mtime uint32
	data  []byte
}

// parse is an independent newc reader, strict about everything Linux's
// unpacker is strict about: magic, 4-byte alignment, NUL-terminated names,
// and the trailer.
func parse(t *testing.T, archive []byte) []entry {
	t.Helper()
	var entries []entry
	off := 0
	align := func(n int) int { return (n + 3) &^ 3 }
	for {
		if off+110 > len(archive) {
			t.Fatalf("truncated header at %d", off)
		}
		h := archive[off : off+110]
		if string(h[:6]) != "070701" {
			t.Fatalf("bad magic %q at %d", h[:6], off)
		}
		field := func(i int) uint32 {
			v, err := strconv.ParseUint(string(h[6+8*i:14+8*i]), 16, 32)
			if err != nil {
				t.Fatalf("bad field %d at %d: %v", i, off, err)
			}
			return uint32(v)
		}
		namesize, size := int(field(11)), int(field(6))
		nameStart := off + 110
		if archive[nameStart+namesize-1] != 0 {
			t.Fatalf("name at %d not NUL-terminated", nameStart)
		}
		e := entry{
			name: string(archive[nameStart : nameStart+namesize-1]),
			ino:  field(0), mode: field(1), nlink: field(4), mtime: field(5),
		}
		dataStart := align(nameStart + namesize)
		e.data = archive[dataStart : dataStart+size]
		off = align(dataStart + size)
		if e.name == trailerName {
			if len(archive)%512 != 0 {
				t.Errorf("archive length %d not a multiple of 512", len(archive))
			}
			return entries
		}
		entries = append(entries, e)
	}
}

func (e entry) String() string {
	return fmt.Sprintf("%s %o nlink=%d %d bytes", e.name, e.mode, e.nlink, len(e.data))
}

func TestWriterLayout(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	must(t, w.AddFile("/init", 0o755, []byte("\x7fELF program")))
	must(t, w.AddFile("/etc/motd", 0o644, []byte("hi\n")))
	must(t, w.AddDir("/etc", 0o700)) // already created: skipped
	must(t, w.AddSymlink("/a/b/link", "../../etc/motd"))
	must(t, w.AddFile("odd", 0o600, []byte("12345")))
	must(t, w.Close())

	got := parse(t, buf.Bytes())
	want := []struct {
		name  string
		mode  uint32
		nlink uint32
		data  string
	}{
		{"init", 0o100755, 1, "\x7fELF program"},
		{"etc", 0o040755, 2, ""},
		{"etc/motd", 0o100644, 1, "hi\n"},
		{"a", 0o040755, 2, ""},
		{"a/b", 0o040755, 2, ""},
		{"a/b/link", 0o120777, 1, "../../etc/motd"},
		{"odd", 0o100600, 1, "12345"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries %v, want %d", len(got), got, len(want))
	}
	inos := map[uint32]bool{}
	for i, w := range want {
		g := got[i]
		if g.name != w.name || g.mode != w.mode || g.nlink != w.nlink || string(g.data) != w.data {
			t.Errorf("entry %d = %v, want %+v", i, g, w)
		}
		if inos[g.ino] {
			t.Errorf("entry %s reuses inode %d", g.name, g.ino)
		}
		inos[g.ino] = true
	}
}

// fileAt is a regular file's fs.FileInfo with modification time mtime.
type fileAt struct{ mtime time.Time }

func (f fileAt) Name() string       { return "f" }
func (f fileAt) Size() int64        { return 0 }
func (f fileAt) Mode() fs.FileMode  { return 0o644 }
func (f fileAt) ModTime() time.Time { return f.mtime }
func (f fileAt) IsDir() bool        { return false }
func (f fileAt) Sys() any           { return nil }

// TestWriterMtime: AddLike writes the time (clamped to newc's unsigned
// 32 bits), its parents and AddFile's files keep the epoch (reproducible
// archives).
func TestWriterMtime(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	must(t, w.AddLike("/d/f", fileAt{time.Unix(1700000000, 5)}, []byte("x")))
	must(t, w.AddLike("/g", fileAt{time.Unix(-5, 0)}, nil))
	must(t, w.AddFile("/h", 0o644, nil))
	must(t, w.Close())
	got := parse(t, buf.Bytes())
	want := map[string]uint32{"d": 0, "d/f": 1700000000, "g": 0, "h": 0}
	for _, e := range got {
		if e.mtime != want[e.name] {
			t.Errorf("%s: mtime %d, want %d", e.name, e.mtime, want[e.name])
		}
	}
}

func TestWriterRejects(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	must(t, w.AddFile("x", 0o644, nil))
	if err := w.AddFile("/x", 0o644, nil); err == nil {
		t.Error("adding a file twice succeeded")
	}
	for _, bad := range []string{"", "/", ".", "/.."} {
		if err := w.AddFile(bad, 0o644, nil); err == nil {
			t.Errorf("AddFile(%q) succeeded", bad)
		}
	}
	must(t, w.Close())
	if err := w.AddFile("late", 0o644, nil); err == nil {
		t.Error("AddFile after Close succeeded")
	}
}

func TestParseMapping(t *testing.T) {
	m, err := ParseMapping("C:/dir:with:colons:/data")
	if err != nil || m.Host != "C:/dir:with:colons" || m.Guest != "/data" {
		t.Errorf("ParseMapping = %+v, %v", m, err)
	}
	for _, bad := range []string{"nocolon", ":/x", "x:", "x:rel", "x:/", "x:/./"} {
		if _, err := ParseMapping(bad); err == nil {
			t.Errorf("ParseMapping(%q) succeeded", bad)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
