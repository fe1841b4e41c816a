package main

// readall: the load of a Go test that reads its package, on a read-only
// share mounted cache=loose (gometal: -mount HOST:GUEST:ro,cache=loose;
// Linux: -o ro,cache=loose): the directory is walked, then `readers`
// goroutines each stat and read every file in it, `passes` times over,
// each starting at another file. One result line: files per second
// (a stat and a read of one file count one), listing included.

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
)

func readAll(dir string, readers, passes int) {
	start := time.Now()
	var paths []string
	must(filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	}))
	if len(paths) == 0 {
		must(fmt.Errorf("no files under %s", dir))
	}
	errs := make(chan error, readers)
	var wg sync.WaitGroup
	for g := 0; g < readers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < passes*len(paths); i++ {
				p := paths[(i+g*len(paths)/readers)%len(paths)]
				st, err := os.Stat(p)
				if err != nil {
					errs <- err
					return
				}
				b, err := os.ReadFile(p)
				if err == nil && int64(len(b)) != st.Size() {
					err = fmt.Errorf("%s: read %d bytes, stat says %d", p, len(b), st.Size())
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(g)
	}
	wg.Wait()
	d := time.Since(start)
	close(errs)
	for err := range errs {
		must(err)
	}
	n := readers * passes * len(paths)
	guest.Report("files", "op", "readall", "ops", float64(n)/d.Seconds(), "files", len(paths), "readers", readers, "passes", passes)
}
