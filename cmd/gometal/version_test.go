package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVersionErrors(t *testing.T) {
	if err := versionMain([]string{"extra"}); err == nil || report(io.Discard, err) != 2 {
		t.Errorf("version extra: %v, want a usage error", err)
	}
	notELF := filepath.Join(t.TempDir(), "kernel")
	os.WriteFile(notELF, []byte("text"), 0o644)
	if err := versionMain([]string{"-kernel", notELF}); err == nil || !strings.Contains(err.Error(), "not an ELF file") {
		t.Errorf("version -kernel <text file>: %v", err)
	}
}
