// Command kvstore is a tiny persistent key-value store on go.etcd.io/bbolt,
// kept in /data/kv.db. Run it with a host directory mounted at /data and
// the data outlives the machine:
//
//	gometal run -mount ./data:/data ./examples/kvstore put k v
//	gometal run -mount ./data:/data ./examples/kvstore get k
//	gometal run -mount ./data:/data ./examples/kvstore list
//	gometal run -mount ./data:/data ./examples/kvstore del k
package main

import (
	"errors"
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

const dbPath = "/data/kv.db"

var bucket = []byte("kv")

func usage() {
	fmt.Fprintln(os.Stderr, "usage: kvstore put KEY VALUE | get KEY | del KEY | list")
	os.Exit(2)
}

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		usage()
	}
	db, err := bolt.Open(dbPath, 0o644, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kvstore: %v (is a directory mounted at /data?)\n", err)
		os.Exit(1)
	}
	defer db.Close()
	if err := run(db, args); err != nil {
		fmt.Fprintf(os.Stderr, "kvstore: %v\n", err)
		db.Close()
		os.Exit(1)
	}
}

func run(db *bolt.DB, args []string) error {
	switch {
	case args[0] == "put" && len(args) == 3:
		return db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists(bucket)
			if err != nil {
				return err
			}
			return b.Put([]byte(args[1]), []byte(args[2]))
		})
	case args[0] == "get" && len(args) == 2:
		return db.View(func(tx *bolt.Tx) error {
			var v []byte
			if b := tx.Bucket(bucket); b != nil {
				v = b.Get([]byte(args[1]))
			}
			if v == nil {
				return errors.New(args[1] + ": no such key")
			}
			fmt.Printf("%s\n", v)
			return nil
		})
	case args[0] == "del" && len(args) == 2:
		return db.Update(func(tx *bolt.Tx) error {
			if b := tx.Bucket(bucket); b != nil {
				return b.Delete([]byte(args[1]))
			}
			return nil
		})
	case args[0] == "list" && len(args) == 1:
		return db.View(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucket)
			if b == nil {
				return nil
			}
			return b.ForEach(func(k, v []byte) error {
				fmt.Printf("%s=%s\n", k, v)
				return nil
			})
		})
	}
	usage()
	return nil
}
