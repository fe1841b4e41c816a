// Command netbulk serves tests/netstress_test.go's transfers and bad peers on
// TCP port 7, each connection on its own goroutine, until a connection
// says "quit". A connection starts with one command line:
//
//	put N SEED       the peer sends N bytes of pattern SEED; every byte is
//	                 checked, then the answer is "ok N" or "bad AT".
//	get N SEED MS K  N bytes of pattern SEED are written; with MS > 0 each
//	                 write has a deadline MS milliseconds ahead, and a write
//	                 that misses it is printed and retried (with what is
//	                 left), at most K times in a row before giving up.
//	echo             what comes back is what was sent, until end of file.
//	quit             the program exits 0.
//
// Every error on a connection is printed ("netbulk: get SEED: ...") and
// ends that connection only. The pattern is tests/internal/bytepattern's,
// which tests/netstress_test.go checks and sends too.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"gometal.dev/gometal/tests/internal/bytepattern"
)

const chunk = bytepattern.Chunk

func main() {
	ln, err := net.Listen("tcp", ":7")
	if err != nil {
		fmt.Println("FAIL netbulk:", err)
		os.Exit(1)
	}
	fmt.Println("netbulk: listening on", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Println("FAIL netbulk: accept:", err)
			os.Exit(1)
		}
		go serve(c)
	}
}

func serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, chunk)
	line, err := r.ReadString('\n')
	if err != nil {
		return
	}
	var cmd string
	var n, seed uint64
	var ms, tries int
	fmt.Sscan(line, &cmd, &n, &seed, &ms, &tries)
	switch cmd {
	case "quit":
		fmt.Println("netbulk: quit")
		os.Exit(0)
	case "echo":
		if _, err := io.Copy(c, r); err != nil {
			fmt.Println("netbulk: echo:", err)
		}
	case "put":
		at, err := bytepattern.Check(r, 0, n, seed)
		if err != nil {
			fmt.Printf("netbulk: put %d: %v\n", seed, err)
			return
		}
		if at < n {
			fmt.Fprintf(c, "bad %d\n", at)
			return
		}
		fmt.Fprintf(c, "ok %d\n", n)
	case "get":
		if err := send(c, n, seed, ms, tries); err != nil {
			fmt.Printf("netbulk: get %d: %v\n", seed, err)
			return
		}
		fmt.Printf("netbulk: get %d: sent %d\n", seed, n)
	default:
		fmt.Printf("netbulk: unknown command %q\n", line)
	}
}

func send(c net.Conn, n, seed uint64, ms, tries int) error {
	buf := make([]byte, chunk)
	missed := 0
	for off := uint64(0); off < n; {
		m := min(uint64(chunk), n-off)
		bytepattern.Fill(buf[:(m+7)&^7], seed, off)
		for p := uint64(0); p < m; {
			if ms > 0 {
				c.SetWriteDeadline(time.Now().Add(time.Duration(ms) * time.Millisecond))
			}
			k, err := c.Write(buf[p:m])
			p += uint64(k)
			if errors.Is(err, os.ErrDeadlineExceeded) && missed < tries {
				missed++
				fmt.Printf("netbulk: get %d: write deadline at %d, again\n", seed, off+p)
				continue
			}
			if err != nil {
				return fmt.Errorf("write at %d: %w", off+p, err)
			}
			missed = 0
		}
		off += m
	}
	return nil
}
