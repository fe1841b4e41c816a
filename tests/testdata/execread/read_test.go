package execread

import (
	"bufio"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// readers is how many goroutines read the whole package at once.
const readers = 10

// manifest reads MANIFEST, which the host test wrote: a line per file of
// the package directory (but itself), "size crc32 path".
func manifest(t *testing.T) map[string]string {
	f, err := os.Open("MANIFEST")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		size, rest, _ := strings.Cut(s.Text(), " ")
		sum, path, _ := strings.Cut(rest, " ")
		want[path] = size + " " + sum
	}
	if err := s.Err(); err != nil || len(want) == 0 {
		t.Fatalf("MANIFEST: %d files, %v", len(want), err)
	}
	return want
}

// TestReadAll lists the package directory, then reads and stats every
// file in it from ten goroutines at once; each must find every file whole
// and as the host has it.
func TestReadAll(t *testing.T) {
	want := manifest(t)
	var paths []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && path != "MANIFEST" {
			paths = append(paths, path)
		}
		return err
	})
	if err != nil || len(paths) != len(want) {
		t.Fatalf("walk: %d files (MANIFEST lists %d), %v", len(paths), len(want), err)
	}
	errs := make(chan error, readers*len(paths))
	var wg sync.WaitGroup
	for g := 0; g < readers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			// Each goroutine starts at another file, so all files are
			// read by several goroutines at the same moment.
			for i := range paths {
				path := paths[(i+g*len(paths)/readers)%len(paths)]
				if err := check(path, want[path]); err != nil {
					errs <- fmt.Errorf("goroutine %d: %v", g, err)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("read %d files from %d goroutines at once", len(paths), readers)
}

// check stats and reads path and compares both with the MANIFEST's line.
func check(path, want string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	got := strconv.Itoa(len(b)) + " " + fmt.Sprintf("%08x", crc32.ChecksumIEEE(b))
	if got != want || st.Size() != int64(len(b)) {
		return fmt.Errorf("%s: stat size %d, read %q; want %q", path, st.Size(), got, want)
	}
	return nil
}
