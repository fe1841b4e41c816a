// Command netbacklog listens on port 7 with an accept backlog of 2 and
// accepts nothing for three seconds while the host (tests/net_test.go)
// opens more connections than that and sends a byte on each: they must
// wait in the kernel, not be reset, and once accepted each echoes its
// byte. Usage: netbacklog N (the connections to expect).
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL netbacklog: "+format+"\n", args...)
	os.Exit(1)
}

// listen makes the listener with a backlog Go's net.Listen does not let a
// program choose (it asks for net.core.somaxconn).
func listen(backlog int) net.Listener {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		fail("socket: %v", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: 7}); err != nil {
		fail("bind: %v", err)
	}
	if err := syscall.Listen(fd, backlog); err != nil {
		fail("listen: %v", err)
	}
	f := os.NewFile(uintptr(fd), "listener")
	ln, err := net.FileListener(f)
	if err != nil {
		fail("FileListener: %v", err)
	}
	f.Close()
	return ln
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: netbacklog N")
	}
	n, _ := strconv.Atoi(os.Args[1])
	ln := listen(2)
	fmt.Println("netbacklog: listening")
	time.Sleep(3 * time.Second) // the host's connections pile up meanwhile
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		c, err := ln.Accept()
		if err != nil {
			fail("accept %d: %v", i, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			b := make([]byte, 1)
			if _, err := io.ReadFull(c, b); err != nil {
				fail("read: %v", err)
			}
			if _, err := c.Write(b); err != nil {
				fail("write: %v", err)
			}
			io.Copy(io.Discard, c) // until the host closes
		}()
	}
	wg.Wait()
	fmt.Println("PASS netbacklog")
}
