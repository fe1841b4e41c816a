package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseMount(t *testing.T) {
	dir := t.TempDir()
	m, err := parseMount(filepath.Join(dir, "new")+":/data/", 3)
	if err != nil {
		t.Fatal(err)
	}
	if m.guest != "/data" || m.tag != "gm3" || m.readOnly || m.kernelOption() != "mount=gm3:/data" {
		t.Errorf("parsed %+v, option %q", m, m.kernelOption())
	}
	if st, err := os.Stat(filepath.Join(dir, "new")); err != nil || !st.IsDir() {
		t.Errorf("a missing HOST of a read-write mount is created: %v", err)
	}
	m, err = parseMount(dir+":/ro:ro", 0)
	if err != nil || !m.readOnly || m.kernelOption() != "mount=gm0:/ro:ro" {
		t.Errorf("ro: %+v %v", m, err)
	}
	m, err = parseMount(dir+":/mod:ro,cache=loose", 1)
	if err != nil || !m.readOnly || !m.cached || m.guest != "/mod" || m.kernelOption() != "mount=gm1:/mod:ro,cache=loose" {
		t.Errorf("ro,cache=loose: %+v %v", m, err)
	}
	for _, bad := range []string{"nocolon", ":/data", dir + ":data", dir + ":/a b", filepath.Join(dir, "missing") + ":/x:ro",
		dir + ":/x:cache=loose", dir + ":/x:ro,cache=none"} {
		if _, err := parseMount(bad, 0); err == nil {
			t.Errorf("parseMount(%q) accepted", bad)
		}
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := parseMount(file+":/x", 0); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as HOST: %v", err)
	}
}
