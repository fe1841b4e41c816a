package main

// parallel: 4 threads (goroutines locked to their own OS threads, so the
// reads are concurrent system calls with several 9P requests in flight)
// each read their own file of the share, /data/pN.in, in 64 KiB reads,
// while a fifth thread writes /data/out.bin; each prints its file's
// length and sha256 for the test to compare with the host's.

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

func parallel() {
	const n = 4
	sums := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread()
			f, err := os.Open(fmt.Sprintf("/data/p%d.in", i))
			check("open", err)
			defer f.Close()
			h := sha256.New()
			buf := make([]byte, 64<<10)
			total := 0
			for {
				k, err := f.Read(buf)
				h.Write(buf[:k])
				total += k
				if err == io.EOF {
					break
				}
				check("read", err)
			}
			sums[i] = fmt.Sprintf("p%d.in: %d bytes, sha256 %x", i, total, h.Sum(nil))
		}(i)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		check("write out.bin", os.WriteFile("/data/out.bin", big(), 0o644))
	}()
	wg.Wait()
	for _, s := range sums {
		fmt.Println(s)
	}
}
