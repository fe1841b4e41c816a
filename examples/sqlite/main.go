// Command sqlite keeps a SQLite database (modernc.org/sqlite, pure Go) in
// /data/example.db: each run records itself in a table and prints every
// run so far. With a host directory mounted at /data the file is an
// ordinary SQLite database on the host:
//
//	gometal run -mount ./data:/data ./examples/sqlite [NOTE]
//	sqlite3 data/example.db 'SELECT * FROM runs'
package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"

	_ "modernc.org/sqlite"
)

func fail(err error) {
	fmt.Fprintf(os.Stderr, "sqlite example: %v (is a directory mounted at /data?)\n", err)
	os.Exit(1)
}

func main() {
	db, err := sql.Open("sqlite", "/data/example.db")
	if err != nil {
		fail(err)
	}
	defer db.Close()
	note := strings.Join(os.Args[1:], " ")
	if note == "" {
		note = "hello from gometal"
	}
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, at TEXT NOT NULL, note TEXT NOT NULL)`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			fail(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO runs (at, note) VALUES (?, ?)`, time.Now().UTC().Format(time.RFC3339), note); err != nil {
		fail(err)
	}
	rows, err := db.Query(`SELECT id, at, note FROM runs ORDER BY id`)
	if err != nil {
		fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		var at, text string
		if err := rows.Scan(&id, &at, &text); err != nil {
			fail(err)
		}
		fmt.Printf("run %d at %s: %s\n", id, at, text)
	}
	if err := rows.Err(); err != nil {
		fail(err)
	}
}
