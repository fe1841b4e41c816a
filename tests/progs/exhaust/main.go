// Command exhaust pushes the kernel's limits the way a careless program
// might: too many open files, a /tmp bigger than memory, many pipes and
// threads. Each must fail with the errno Linux gives (EMFILE, ENOSPC...)
// or succeed; the kernel must keep running and the program exit normally.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL exhaust: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	// Descriptors: the limit is RLIMIT_NOFILE (4095 once Go has raised it,
	// as on Linux), reported as EMFILE.
	var files []*os.File
	var err error
	for i := 0; i < 10000; i++ {
		var f *os.File
		f, err = os.Open("/dev/null")
		if err != nil {
			break
		}
		files = append(files, f)
	}
	if !errors.Is(err, syscall.EMFILE) {
		fail("opening 10000 files: got %v after %d, want EMFILE", err, len(files))
	}
	fmt.Printf("descriptors: EMFILE after %d opens\n", len(files))
	for _, f := range files {
		f.Close()
	}

	// A file larger than memory: ENOSPC, then the space comes back on remove.
	dir, err := os.MkdirTemp("", "exhaust")
	if err != nil {
		fail("MkdirTemp: %v", err)
	}
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	if err != nil {
		fail("create: %v", err)
	}
	chunk := make([]byte, 1<<20)
	written := 0
	for written < 1<<30 {
		var n int
		n, err = f.Write(chunk)
		written += n
		if err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		fail("writing 1 GiB to /tmp: got %v after %d MiB, want ENOSPC", err, written>>20)
	}
	fmt.Printf("tmpfs: ENOSPC after %d MiB\n", written>>20)
	f.Close()
	if err := os.Remove(big); err != nil {
		fail("remove: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "after"), chunk, 0o600); err != nil {
		fail("space not returned after remove: %v", err)
	}

	// Many small files.
	for i := 0; i < 3000; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint("f", i)), []byte("x"), 0o600); err != nil {
			fail("small file %d: %v", i, err)
		}
	}
	ents, _ := os.ReadDir(dir)
	fmt.Printf("small files: %d entries\n", len(ents))
	os.RemoveAll(dir)

	// Many pipes.
	var pipes []*os.File
	for i := 0; i < 200; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			fail("pipe %d: %v", i, err)
		}
		pipes = append(pipes, r, w)
	}
	for _, p := range pipes {
		p.Close()
	}
	fmt.Println("pipes: 200 created and closed")

	// Many threads at once: goroutines locked to their threads, all blocked.
	const threads = 200
	var started, done sync.WaitGroup
	release := make(chan struct{})
	started.Add(threads)
	done.Add(threads)
	for i := 0; i < threads; i++ {
		go func() {
			runtime.LockOSThread()
			started.Done()
			<-release
			done.Done()
		}()
	}
	started.Wait()
	close(release)
	done.Wait()
	fmt.Printf("threads: %d locked goroutines ran at once\n", threads)
	fmt.Println("PASS exhaust")
}
