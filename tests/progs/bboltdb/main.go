// Command bboltdb runs a go.etcd.io/bbolt workload (flock, a read-only
// MAP_SHARED mapping that must see pwrite's pages, fdatasync, remapping as
// the file grows): puts in several transactions, concurrent readers, close,
// reopen, and a check of every value.
//
//	bboltdb [-keys N] [-path FILE]
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"

	bolt "go.etcd.io/bbolt"
)

func check(what string, err error) {
	if err != nil {
		fmt.Printf("FAIL bboltdb: %s: %v\n", what, err)
		os.Exit(1)
	}
}

func value(i int) []byte { return fmt.Appendf(nil, "value-%d-%0100d", i, i) }

func main() {
	keys := flag.Int("keys", 5000, "keys to put")
	path := flag.String("path", "", "database file (default: a new file under /tmp)")
	flag.Parse()
	if *path == "" {
		dir, err := os.MkdirTemp("", "bolt-*")
		check("MkdirTemp", err)
		*path = dir + "/bolt.db"
	}
	db, err := bolt.Open(*path, 0o600, nil)
	check("open", err)
	// A second open of the same file waits for the flock; with a timeout
	// it must give up.
	if _, err := bolt.Open(*path, 0o600, &bolt.Options{Timeout: 100_000_000}); err == nil {
		fmt.Println("FAIL bboltdb: a second open got the lock")
		os.Exit(1)
	}
	for base := 0; base < *keys; base += 500 {
		check("update", db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("kv"))
			if err != nil {
				return err
			}
			for i := base; i < *keys && i < base+500; i++ {
				if err := b.Put(fmt.Appendf(nil, "key-%08d", i), value(i)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	verify(db, *keys)
	check("close", db.Close())
	db, err = bolt.Open(*path, 0o600, nil)
	check("reopen", err)
	verify(db, *keys)
	check("close", db.Close())
	fmt.Printf("bbolt: %d keys put, read by 4 readers, reopened and checked\n", *keys)
	fmt.Println("PASS bboltdb")
}

// verify reads every key from 4 concurrent read transactions.
func verify(db *bolt.DB, keys int) {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- db.View(func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte("kv"))
				if b == nil {
					return fmt.Errorf("no bucket")
				}
				for i := w; i < keys; i += 4 {
					if got := b.Get(fmt.Appendf(nil, "key-%08d", i)); string(got) != string(value(i)) {
						return fmt.Errorf("key %d: got %q", i, got)
					}
				}
				if n := b.Stats().KeyN; n != keys {
					return fmt.Errorf("%d keys in the bucket, want %d", n, keys)
				}
				return nil
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		check("verify", err)
	}
}
