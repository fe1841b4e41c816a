package goexec

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gometal.dev/gometal/internal/initramfs"
)

func TestForwardEnv(t *testing.T) {
	in := []string{
		"PATH=/usr/bin", "HOME=/root", "GODEBUG=gctrace=1", "GOTRACEBACK=all",
		"GOMAXPROCS=2", "GOMETAL_KERNEL=/k", "GOMETAL_EXEC_FLAGS=-v", "TMPDIR=/var/tmp",
		"GOTMPDIR=/x", "LC_ALL=C", "TZ=UTC", "PWD=/src/pkg", "SECRET=1", "=bad", "noequals",
		"GO_WANT_HELPER_PROCESS=1", "USER=me",
	}
	want := []string{
		"HOME=/root", "GODEBUG=gctrace=1", "GOTRACEBACK=all", "GOMAXPROCS=2",
		"LC_ALL=C", "TZ=UTC", "PWD=/src/pkg", "GO_WANT_HELPER_PROCESS=1", "USER=me",
	}
	if got := ForwardEnv(in); !reflect.DeepEqual(got, want) {
		t.Errorf("ForwardEnv:\n got %q\nwant %q", got, want)
	}
}

func TestTestTimeout(t *testing.T) {
	cases := []struct {
		args []string
		want time.Duration
		ok   bool
	}{
		{[]string{"-test.paniconexit0", "-test.timeout=10m0s", "-test.v=true"}, 10 * time.Minute, true},
		{[]string{"--test.timeout", "30s"}, 30 * time.Second, true},
		{[]string{"-test.timeout=1m", "-test.timeout=2m"}, 2 * time.Minute, true},
		{[]string{"-test.timeout=0"}, 0, false},
		{[]string{"-test.timeout=soon"}, 0, false},
		{[]string{"-test.timeout"}, 0, false},
		{[]string{"-test.v", "--", "-test.timeout=1m"}, 0, false},
		{[]string{"test.timeout=1m"}, 0, false},
		{nil, 0, false},
	}
	for _, c := range cases {
		got, ok := TestTimeout(c.args)
		if got != c.want || ok != c.ok {
			t.Errorf("TestTimeout(%q) = %v, %v; want %v, %v", c.args, got, ok, c.want, c.ok)
		}
	}
}

func TestQEMUTimeout(t *testing.T) {
	if got := QEMUTimeout(5*time.Second, []string{"-test.timeout=1m"}); got != 5*time.Second {
		t.Errorf("explicit: %v", got)
	}
	if got := QEMUTimeout(0, []string{"-test.timeout=1m"}); got != time.Minute+TimeoutMargin {
		t.Errorf("derived: %v", got)
	}
	if got := QEMUTimeout(0, []string{"-test.v"}); got != 0 {
		t.Errorf("none: %v", got)
	}
}

func TestSplitFlags(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  -cores 2\t-v ", []string{"-cores", "2", "-v"}},
		{`-kernel-args 'trace stats'`, []string{"-kernel-args", "trace stats"}},
		{`-env "A=b c" -env B=\"x\"`, []string{"-env", "A=b c", "-env", `B="x"`}},
		{`-env "q=\"\\"`, []string{"-env", `q="\`}},
		{`''`, []string{""}},
		{`a\ b`, []string{"a b"}},
	}
	for _, c := range cases {
		got, err := SplitFlags(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitFlags(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := SplitFlags(`-env 'open`); err == nil {
		t.Error("unterminated quote: no error")
	}
}

// entries lists an archive's entry names, types and sizes.
func entries(t *testing.T, archive []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	r := bytes.NewReader(archive)
	for {
		var hdr [110]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			t.Fatalf("short archive: %v", err)
		}
		field := func(i int) int64 {
			var v int64
			for _, c := range string(hdr[6+8*i : 14+8*i]) {
				v = v*16 + int64(strings.IndexRune("0123456789abcdef", c|0x20))
			}
			return v
		}
		mode, size, namesize := field(1), field(6), field(11)
		name := make([]byte, namesize)
		io.ReadFull(r, name)
		pad := func(n int64) { r.Seek((4-(n%4))%4, io.SeekCurrent) }
		pad(110 + namesize)
		data := make([]byte, size)
		io.ReadFull(r, data)
		pad(size)
		n := strings.TrimRight(string(name), "\x00")
		if n == "TRAILER!!!" {
			return out
		}
		switch mode & 0o170000 {
		case initramfs.ModeDir:
			out[n] = "dir"
		case initramfs.ModeLink:
			out[n] = "link:" + string(data)
		default:
			out[n] = "file:" + string(data)
		}
	}
}

func TestImageCreate(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "src", "pkg")
	for name, body := range map[string]string{
		"pkg_test.go":        "package pkg",
		"testdata/a.txt":     "aaaa",
		"testdata/big.bin":   strings.Repeat("x", 100),
		".git/HEAD":          "ref",
		"testdata/sub/b.txt": "b",
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("a.txt", filepath.Join(dir, "testdata", "link"))
	prog := filepath.Join(root, "prog")
	os.WriteFile(prog, []byte("ELF"), 0o755)
	zone := filepath.Join(root, "zoneinfo.zip")
	os.WriteFile(zone, []byte("zip"), 0o644)

	archive := filepath.Join(root, "out.cpio")
	var warn bytes.Buffer
	im := Image{Program: prog, Dir: dir, MaxDir: 50, Warnings: &warn,
		Extras: []initramfs.Mapping{{Host: zone, Guest: "/goroot/lib/time/zoneinfo.zip"}}}
	st, err := im.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(archive)
	got := entries(t, data)
	g := strings.TrimPrefix(filepath.ToSlash(dir), "/")
	want := map[string]string{
		"init":                         "file:ELF",
		g:                              "dir",
		g + "/pkg_test.go":             "file:package pkg",
		g + "/testdata":                "dir",
		g + "/testdata/a.txt":          "file:aaaa",
		g + "/testdata/link":           "link:a.txt",
		g + "/testdata/sub":            "dir",
		g + "/testdata/sub/b.txt":      "file:b",
		"goroot/lib/time/zoneinfo.zip": "file:zip",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if strings.Contains(k, ".git") || strings.HasSuffix(k, "big.bin") {
			t.Errorf("%s should have been left out", k)
		}
	}
	if st.SkippedFiles != 1 || st.SkippedBytes != 100 {
		t.Errorf("skipped %d files, %d bytes; want 1, 100", st.SkippedFiles, st.SkippedBytes)
	}
	if !strings.Contains(warn.String(), "left 1 files") {
		t.Errorf("no cap warning: %q", warn.String())
	}
}

func TestInside(t *testing.T) {
	if !inside("/a/b/c", "/a/b") || inside("/a/bc", "/a/b") || inside("/x", "") || !inside("/a", "/a/") {
		t.Error("inside is wrong")
	}
}

func TestZoneinfoMapping(t *testing.T) {
	root := t.TempDir()
	if _, ok := ZoneinfoMapping(root); ok {
		t.Error("found zoneinfo in an empty GOROOT")
	}
	os.MkdirAll(filepath.Join(root, "lib", "time"), 0o755)
	os.WriteFile(filepath.Join(root, "lib", "time", "zoneinfo.zip"), nil, 0o644)
	m, ok := ZoneinfoMapping(root)
	if !ok || m.Guest != filepath.ToSlash(m.Host) || !strings.HasSuffix(m.Host, "zoneinfo.zip") {
		t.Errorf("ZoneinfoMapping = %+v, %v", m, ok)
	}
}
