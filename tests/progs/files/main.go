// Command files exercises the writable in-memory file system the way Go
// tests use it: temporary directories and files, rename, remove, listing,
// symlinks, permissions, times, truncation, appends, pipes and /dev/null.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func check(what string, err error) {
	if err != nil {
		fmt.Printf("FAIL files: %s: %v\n", what, err)
		os.Exit(1)
	}
}

func expect(what string, ok bool) {
	if !ok {
		fmt.Printf("FAIL files: %s\n", what)
		os.Exit(1)
	}
}

func main() {
	dir, err := os.MkdirTemp("", "gometal-*")
	check("MkdirTemp", err)
	expect("temp dir under /tmp", strings.HasPrefix(dir, "/tmp/"))
	p := writeRead(dir)
	bigFile(dir)
	directories(dir, p)
	linksModesTimes(dir)
	workingDir(dir)
	pipes()
	devNullAndRemove(dir)
	fmt.Println("PASS files")
}

// writeRead writes a file, appends to it, reads it back and truncates it;
// it returns its path.
func writeRead(dir string) string {
	p := filepath.Join(dir, "a.txt")
	check("WriteFile", os.WriteFile(p, []byte("hello"), 0o644))
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	check("open append", err)
	_, err = f.WriteString(", world")
	check("append", err)
	check("close", f.Close())
	b, err := os.ReadFile(p)
	check("ReadFile", err)
	expect("content after append: "+string(b), string(b) == "hello, world")
	check("Truncate", os.Truncate(p, 5))
	st, err := os.Stat(p)
	check("Stat", err)
	expect("size after truncate", st.Size() == 5 && st.Mode().IsRegular() && st.Mode().Perm() == 0o644)
	return p
}

// bigFile writes a file bigger than a page at an offset and reads it back
// with ReadAt, the hole before it as zeros.
func bigFile(dir string) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16000 bytes
	g, err := os.Create(filepath.Join(dir, "big"))
	check("Create", err)
	_, err = g.WriteAt(big, 100)
	check("WriteAt", err)
	buf := make([]byte, 16000)
	_, err = g.ReadAt(buf, 100)
	check("ReadAt", err)
	expect("big round trip", bytes.Equal(buf, big))
	head := make([]byte, 100)
	_, err = g.ReadAt(head, 0)
	check("ReadAt hole", err)
	expect("hole reads as zero", bytes.Equal(head, make([]byte, 100)))
	check("close big", g.Close())
}

// directories makes, lists, walks and renames into a tree; p (a.txt)
// moves into it.
func directories(dir, p string) {
	check("MkdirAll", os.MkdirAll(filepath.Join(dir, "x/y/z"), 0o755))
	check("Rename", os.Rename(p, filepath.Join(dir, "x/y/b.txt")))
	_, err := os.Stat(p)
	expect("old name gone", errors.Is(err, fs.ErrNotExist))
	ents, err := os.ReadDir(filepath.Join(dir, "x/y"))
	check("ReadDir", err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	expect("listing "+strings.Join(names, ","), strings.Join(names, ",") == "b.txt,z")
	err = os.Remove(filepath.Join(dir, "x"))
	expect("removing a non-empty directory fails", err != nil)
	var count int
	check("WalkDir", filepath.WalkDir(dir, func(string, fs.DirEntry, error) error { count++; return nil }))
	expect(fmt.Sprintf("walk saw %d entries", count), count == 6)
}

// linksModesTimes checks a symlink, chmod and chtimes.
func linksModesTimes(dir string) {
	check("Symlink", os.Symlink("x/y/b.txt", filepath.Join(dir, "link")))
	target, err := os.Readlink(filepath.Join(dir, "link"))
	check("Readlink", err)
	expect("readlink", target == "x/y/b.txt")
	b, err := os.ReadFile(filepath.Join(dir, "link"))
	check("read through symlink", err)
	expect("content through symlink", string(b) == "hello")
	check("Chmod", os.Chmod(filepath.Join(dir, "big"), 0o600))
	when := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	check("Chtimes", os.Chtimes(filepath.Join(dir, "big"), when, when))
	st, err := os.Stat(filepath.Join(dir, "big"))
	check("Stat big", err)
	expect("mode and mtime", st.Mode().Perm() == 0o600 && st.ModTime().Equal(when))
}

// workingDir changes into the tree and reads by a relative path.
func workingDir(dir string) {
	check("Chdir", os.Chdir(filepath.Join(dir, "x")))
	wd, err := os.Getwd()
	check("Getwd", err)
	expect("getwd "+wd, wd == filepath.Join(dir, "x"))
	b, err := os.ReadFile("y/b.txt")
	check("relative read", err)
	expect("relative content", string(b) == "hello")
}

// pipes reads from a pipe a goroutine writes, to the end of file when it
// closes it.
func pipes() {
	r, w, err := os.Pipe()
	check("Pipe", err)
	go func() {
		for i := 0; i < 100; i++ {
			fmt.Fprintf(w, "line %d\n", i)
		}
		w.Close()
	}()
	all, err := io.ReadAll(r)
	check("read pipe", err)
	expect("pipe content", strings.Count(string(all), "\n") == 100)
}

// devNullAndRemove writes to /dev/null and removes the whole tree.
func devNullAndRemove(dir string) {
	n, err := io.WriteString(io.Discard, "x")
	expect("discard", n == 1 && err == nil)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	check("open /dev/null", err)
	_, err = null.WriteString("gone")
	check("write /dev/null", err)
	check("RemoveAll", os.RemoveAll(dir))
	_, err = os.Stat(dir)
	expect("temp dir removed", errors.Is(err, fs.ErrNotExist))
}
