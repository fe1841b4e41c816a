// Command files is the file benchmark: in -dir (a host directory shared
// over virtio-9p) it writes a file sequentially and reads it back, reads
// -par files at once from as many threads (each goroutine locked to its
// own OS thread, so the reads are concurrent system calls), creates,
// stats and deletes many small files, and inserts into and queries a
// SQLite database (modernc.org/sqlite), reporting one result line per
// measure. On gometal the kernel has mounted the share (-mount); as Linux's
// /init, -linux-mount TAG makes the program mount it first (linux.go).
// -readall N measures only N goroutines reading a read-only share's
// files (readall.go).
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
	_ "modernc.org/sqlite"
)

func must(err error) {
	if err != nil {
		guest.Fail("files", err)
	}
}

func main() {
	dir := flag.String("dir", "/data", "directory to work in")
	mib := flag.Int("mib", 256, "MiB of the sequential file")
	small := flag.Int("small", 2000, "small files to create, stat and delete")
	rows := flag.Int("rows", 20000, "SQLite rows to insert (transactions of 1000)")
	par := flag.Int("par", 4, "threads (and files) of the concurrent read; 0: skip it")
	linuxTag := flag.String("linux-mount", "", "as Linux's /init: load /modules/* and mount this virtio-9p tag at -dir")
	readers := flag.Int("readall", 0, "only this: as many goroutines stat and read every file under -dir (a read-only share, mounted cache=loose)")
	passes := flag.Int("passes", 3, "times each -readall goroutine reads every file")
	flag.Parse()
	if *linuxTag != "" {
		opts, err := mountLinux(*linuxTag, *dir, *readers > 0)
		must(err)
		guest.Report("files", "op", "mount", "options", opts)
	}
	if *readers > 0 {
		readAll(*dir, *readers, *passes)
		guest.PowerOff()
	}
	seq(*dir, *mib)
	if *par > 0 {
		parRead(*dir, *mib, *par)
	}
	smallFiles(*dir, *small)
	sqlite(*dir, *rows)
	guest.PowerOff()
}

func seq(dir string, mib int) {
	path := filepath.Join(dir, "seq.bin")
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 31)
	}
	f, err := os.Create(path)
	must(err)
	start := time.Now()
	for i := 0; i < mib; i++ {
		_, err := f.Write(buf)
		must(err)
	}
	must(f.Sync())
	must(f.Close())
	w := time.Since(start)
	f, err = os.Open(path)
	must(err)
	start = time.Now()
	// Read with the write's buffer size: io.Copy to io.Discard would read
	// 8 KiB at a time (Discard's ReadFrom), one 9P round trip each.
	var n int64
	for {
		k, err := f.Read(buf)
		n += int64(k)
		if err == io.EOF {
			break
		}
		must(err)
	}
	r := time.Since(start)
	f.Close()
	if n != int64(mib)<<20 {
		must(fmt.Errorf("read back %d bytes", n))
	}
	must(os.Remove(path))
	mb := float64(n) / 1e6
	guest.Report("files", "op", "seqwrite", "mbs", mb/w.Seconds(), "mib", mib)
	guest.Report("files", "op", "seqread", "mbs", mb/r.Seconds(), "mib", mib)
}

// parRead writes n files of mib/n MiB each, then reads them all at once,
// one thread per file, with 1 MiB reads; it reports the total rate.
func parRead(dir string, mib, n int) {
	size := (mib << 20) / n
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("par%d.bin", i))
		f, err := os.Create(paths[i])
		must(err)
		for done := 0; done < size; done += len(buf) {
			_, err := f.Write(buf[:min(len(buf), size-done)])
			must(err)
		}
		must(f.Close())
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := time.Now()
	for i := range paths {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread()
			f, err := os.Open(paths[i])
			if err != nil {
				errs[i] = err
				return
			}
			defer f.Close()
			b := make([]byte, 1<<20)
			got := 0
			for {
				k, err := f.Read(b)
				got += k
				if err == io.EOF {
					break
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
			if got != size {
				errs[i] = fmt.Errorf("%s: read %d bytes, want %d", paths[i], got, size)
			}
		}(i)
	}
	wg.Wait()
	d := time.Since(start)
	for _, err := range errs {
		must(err)
	}
	for _, p := range paths {
		must(os.Remove(p))
	}
	guest.Report("files", "op", "parread", "mbs", float64(size*n)/1e6/d.Seconds(), "threads", n)
}

func smallFiles(dir string, n int) {
	d := filepath.Join(dir, "small")
	must(os.MkdirAll(d, 0o755))
	data := make([]byte, 1024)
	name := func(i int) string { return filepath.Join(d, fmt.Sprintf("f%06d", i)) }
	start := time.Now()
	for i := 0; i < n; i++ {
		must(os.WriteFile(name(i), data, 0o644))
	}
	c := time.Since(start)
	start = time.Now()
	for i := 0; i < n; i++ {
		_, err := os.Stat(name(i))
		must(err)
	}
	s := time.Since(start)
	start = time.Now()
	for i := 0; i < n; i++ {
		must(os.Remove(name(i)))
	}
	del := time.Since(start)
	must(os.Remove(d))
	guest.Report("files", "op", "create", "ops", float64(n)/c.Seconds())
	guest.Report("files", "op", "stat", "ops", float64(n)/s.Seconds())
	guest.Report("files", "op", "delete", "ops", float64(n)/del.Seconds())
}

func sqlite(dir string, rows int) {
	path := filepath.Join(dir, "bench.db")
	os.Remove(path)
	db, err := sql.Open("sqlite", path)
	must(err)
	_, err = db.Exec(`CREATE TABLE kv (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`)
	must(err)
	start := time.Now()
	for base := 0; base < rows; base += 1000 {
		tx, err := db.Begin()
		must(err)
		for i := base; i < rows && i < base+1000; i++ {
			_, err := tx.Exec(`INSERT INTO kv (id, v) VALUES (?, ?)`, i, fmt.Sprintf("value %d", i))
			must(err)
		}
		must(tx.Commit())
	}
	ins := time.Since(start)
	queries := rows / 4
	start = time.Now()
	for i := 0; i < queries; i++ {
		var v string
		must(db.QueryRow(`SELECT v FROM kv WHERE id = ?`, (i*7919)%rows).Scan(&v))
	}
	q := time.Since(start)
	must(db.Close())
	must(os.Remove(path))
	guest.Report("files", "op", "sqliteinsert", "ops", float64(rows)/ins.Seconds())
	guest.Report("files", "op", "sqlitequery", "ops", float64(queries)/q.Seconds())
}
