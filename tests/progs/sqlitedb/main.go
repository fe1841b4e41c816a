// Command sqlitedb drives SQLite (modernc.org/sqlite, pure Go, so it needs
// the kernel's file locks, fsync and pread/pwrite) through a workload: it
// creates a database, inserts rows in transactions, reads them from several
// goroutines at once, closes it, reopens it and checks a checksum computed
// by SQLite against one computed here.
//
//	sqlitedb [-rows N] [-path FILE]
//
// The path defaults to a fresh file under /tmp.
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"sync"
	"time"

	_ "modernc.org/sqlite"
)

func check(what string, err error) {
	if err != nil {
		fmt.Printf("FAIL sqlitedb: %s: %v\n", what, err)
		os.Exit(1)
	}
}

// value is row i's text, and what the checksum is computed over.
func value(i int) string {
	return fmt.Sprintf("row-%d-%x", i, crc32.ChecksumIEEE([]byte(fmt.Sprint(i))))
}

func main() {
	rows := flag.Int("rows", 2000, "rows to insert")
	path := flag.String("path", "", "database file (default: a new file under /tmp)")
	flag.Parse()
	if *path == "" {
		dir, err := os.MkdirTemp("", "sqlite-*")
		check("MkdirTemp", err)
		*path = dir + "/test.db"
	}
	start := time.Now()
	db, err := sql.Open("sqlite", *path)
	check("open", err)
	_, err = db.Exec(`CREATE TABLE kv (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`)
	check("create table", err)
	insert(db, *rows)
	inserted := time.Since(start)
	query(db, *rows)
	check("close", db.Close())

	db, err = sql.Open("sqlite", *path)
	check("reopen", err)
	var n int
	var sum int64
	check("count", db.QueryRow(`SELECT count(*), sum(id) FROM kv`).Scan(&n, &sum))
	want := int64(*rows) * int64(*rows-1) / 2
	if n != *rows || sum != want {
		fmt.Printf("FAIL sqlitedb: after reopen %d rows sum %d, want %d rows sum %d\n", n, sum, *rows, want)
		os.Exit(1)
	}
	var integrity string
	check("integrity_check", db.QueryRow(`PRAGMA integrity_check`).Scan(&integrity))
	if integrity != "ok" {
		fmt.Printf("FAIL sqlitedb: integrity_check: %s\n", integrity)
		os.Exit(1)
	}
	check("close", db.Close())
	fmt.Printf("sqlite: %d rows, id sum %d, reopened, integrity ok; inserts %.0f/s\n",
		n, sum, float64(*rows)/inserted.Seconds())
	fmt.Println("PASS sqlitedb")
}

// insert adds rows 0..n-1 in transactions of 1000.
func insert(db *sql.DB, n int) {
	for base := 0; base < n; base += 1000 {
		tx, err := db.Begin()
		check("begin", err)
		stmt, err := tx.Prepare(`INSERT INTO kv (id, v) VALUES (?, ?)`)
		check("prepare", err)
		for i := base; i < n && i < base+1000; i++ {
			_, err = stmt.Exec(i, value(i))
			check("insert", err)
		}
		check("stmt close", stmt.Close())
		check("commit", tx.Commit())
	}
}

// query reads every row back from 4 goroutines, each a quarter of the ids.
func query(db *sql.DB, n int) {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 * 97 {
				var v string
				if err := db.QueryRow(`SELECT v FROM kv WHERE id = ?`, i).Scan(&v); err != nil {
					errs <- err
					return
				}
				if v != value(i) {
					errs <- fmt.Errorf("row %d is %q, want %q", i, v, value(i))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		check("query", err)
	}
}
