// TCP phases: echo, concurrency, bulk transfer, half-close, refusal,
// backlog, reset, sequential connections.
package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"sync"
	"syscall"
	"time"
)

// echoServer accepts on l and echoes every connection until l closes.
func echoServer(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			io.Copy(c, c)
		}()
	}
}

func listen(network, addr string) net.Listener {
	l, err := net.Listen(network, addr)
	check("listen "+network+" "+addr, err)
	go echoServer(l)
	return l
}

// echoOnce dials addr, sends a line and expects it back.
func echoOnce(network, addr string) {
	c, err := net.Dial(network, addr)
	check("dial "+addr, err)
	defer c.Close()
	msg := []byte("hello over " + addr + "\n")
	_, err = c.Write(msg)
	check("write", err)
	got := make([]byte, len(msg))
	_, err = io.ReadFull(c, got)
	check("read echo", err)
	if !bytes.Equal(got, msg) {
		fail("echo from %s: got %q", addr, got)
	}
}

func echoAll() {
	for _, tc := range []struct{ network, addr, dial string }{
		{"tcp4", "127.0.0.1:0", ""},
		{"tcp6", "[::1]:0", ""},
		{"tcp", ":0", "127.0.0.1"}, // dual stack: an IPv4 client of [::]
		{"tcp", ":0", "::1"},
	} {
		l := listen(tc.network, tc.addr)
		addr := l.Addr().String()
		if tc.dial != "" {
			addr = net.JoinHostPort(tc.dial, fmt.Sprint(l.Addr().(*net.TCPAddr).Port))
		}
		echoOnce("tcp", addr)
		l.Close()
	}
	fmt.Println("echo: 127.0.0.1, ::1 and dual-stack [::] ok")
}

func concurrent() {
	l := listen("tcp", "127.0.0.1:0")
	defer l.Close()
	const n = 100
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			msg := []byte(fmt.Sprintf("connection %d says hi", i))
			for round := 0; round < 10; round++ {
				if _, err := c.Write(msg); err != nil {
					errs <- err
					return
				}
				got := make([]byte, len(msg))
				if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
					errs <- fmt.Errorf("conn %d round %d: %q %v", i, round, got, err)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fail("concurrent: %v", err)
	}
	fmt.Printf("concurrent: %d connections x 10 echoes ok\n", n)
}

// bulk sends bulkMiB MiB each way at once and compares SHA-256 sums.
func bulk() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check("listen", err)
	defer l.Close()
	size := bulkMiB << 20
	data := make([]byte, size)
	rand.New(rand.NewSource(1)).Read(data)
	want := sha256.Sum256(data)
	type result struct {
		sum [32]byte
		n   int64
		err error
	}
	sink := func(c net.Conn, out chan<- result) {
		h := sha256.New()
		n, err := io.Copy(h, c)
		var s [32]byte
		copy(s[:], h.Sum(nil))
		out <- result{s, n, err}
	}
	serverGot := make(chan result, 1)
	go func() {
		c, err := l.Accept()
		check("accept", err)
		got := make(chan result, 1)
		go sink(c, got)
		_, err = c.Write(data)
		check("server write", err)
		c.(*net.TCPConn).CloseWrite()
		r := <-got // the client is done writing: close only now
		c.Close()
		serverGot <- r
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	check("dial", err)
	start := time.Now()
	clientGot := make(chan result, 1)
	go sink(c, clientGot)
	_, err = c.Write(data)
	check("client write", err)
	c.(*net.TCPConn).CloseWrite()
	for _, ch := range []chan result{serverGot, clientGot} {
		r := <-ch
		if r.err != nil || r.n != int64(size) || r.sum != want {
			fail("bulk: got %d bytes (err %v), checksum match %v", r.n, r.err, r.sum == want)
		}
	}
	c.Close()
	secs := time.Since(start).Seconds()
	fmt.Printf("bulk: %d MiB each way, checksums match (%.1f MiB/s each way)\n", bulkMiB, float64(bulkMiB)/secs)
}

func halfClose() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check("listen", err)
	defer l.Close()
	go func() {
		c, err := l.Accept()
		check("accept", err)
		defer c.Close()
		got, err := io.ReadAll(c) // until the client's CloseWrite
		check("server read", err)
		c.Write([]byte(fmt.Sprintf("got %d bytes", len(got))))
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	check("dial", err)
	defer c.Close()
	c.Write([]byte("twelve bytes"))
	check("CloseWrite", c.(*net.TCPConn).CloseWrite())
	if _, err := c.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		fail("write after CloseWrite: %v, want EPIPE", err)
	}
	reply, err := io.ReadAll(c)
	check("client read", err)
	if string(reply) != "got 12 bytes" {
		fail("half-close reply %q", reply)
	}
	fmt.Println("halfclose: reply after CloseWrite ok, EPIPE on write")
}

func refused() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check("listen", err)
	addr := l.Addr().String()
	l.Close()
	_, err = net.Dial("tcp", addr)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		fail("dial closed port: %v, want ECONNREFUSED", err)
	}
	_, err = net.Dial("tcp", "[::1]:1")
	if !errors.Is(err, syscall.ECONNREFUSED) {
		fail("dial [::1]:1: %v, want ECONNREFUSED", err)
	}
	fmt.Println("refused: ECONNREFUSED ok")
}

// backlog: 200 connections complete before the server accepts any.
func backlog() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check("listen", err)
	defer l.Close()
	const n = 200
	var conns []net.Conn
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", l.Addr().String())
		check(fmt.Sprintf("dial %d before accepting", i), err)
		c.Write([]byte{byte(i)})
		conns = append(conns, c)
	}
	for i := 0; i < n; i++ {
		c, err := l.Accept()
		check("accept", err)
		b := make([]byte, 1)
		_, err = io.ReadFull(c, b)
		check("read", err)
		if b[0] != byte(i) {
			fail("backlog: accepted out of order: %d at %d", b[0], i)
		}
		c.Close()
	}
	for _, c := range conns {
		c.Close()
	}
	fmt.Printf("backlog: %d connections queued and accepted in order\n", n)
}

// reset: closing with unread data resets the peer.
func reset() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check("listen", err)
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	check("dial", err)
	defer c.Close()
	s, err := l.Accept()
	check("accept", err)
	c.Write([]byte("never read"))
	time.Sleep(10 * time.Millisecond)
	s.Close()
	_, err = c.Read(make([]byte, 10))
	if !errors.Is(err, syscall.ECONNRESET) {
		fail("read after peer closed with unread data: %v, want ECONNRESET", err)
	}
	// SO_LINGER 0: close resets even with nothing unread.
	c2, err := net.Dial("tcp", l.Addr().String())
	check("dial", err)
	defer c2.Close()
	s2, err := l.Accept()
	check("accept", err)
	s2.(*net.TCPConn).SetLinger(0)
	s2.Close()
	if _, err = c2.Read(make([]byte, 1)); !errors.Is(err, syscall.ECONNRESET) {
		fail("read after peer closed with SO_LINGER 0: %v, want ECONNRESET", err)
	}
	// A peer that closed normally: reads see end of file, the first write
	// still succeeds (the peer's reset comes back), the next is EPIPE.
	c3, err := net.Dial("tcp", l.Addr().String())
	check("dial", err)
	defer c3.Close()
	s3, err := l.Accept()
	check("accept", err)
	s3.Close()
	if n, err := c3.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		fail("read after the peer closed: %d %v, want EOF", n, err)
	}
	if _, err := c3.Write([]byte("first")); err != nil {
		fail("first write after the peer closed: %v, want success", err)
	}
	time.Sleep(10 * time.Millisecond)
	if _, err := c3.Write([]byte("second")); !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
		fail("second write after the peer closed: %v, want EPIPE", err)
	}
	fmt.Println("reset: ECONNRESET ok")
}

// many holds manyConns connections open at once, then echoes once on each
// (the cost of many registered descriptors in one epoll).
func many() {
	l := listen("tcp", "127.0.0.1:0")
	defer l.Close()
	start := time.Now()
	conns := make([]net.Conn, manyConns)
	for i := range conns {
		c, err := net.Dial("tcp", l.Addr().String())
		check(fmt.Sprintf("dial %d", i), err)
		conns[i] = c
	}
	opened := time.Since(start)
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func(c net.Conn) {
			defer wg.Done()
			c.Write([]byte("x"))
			b := make([]byte, 1)
			_, err := io.ReadFull(c, b)
			check("many read", err)
		}(c)
	}
	wg.Wait()
	echoed := time.Since(start) - opened
	for _, c := range conns {
		c.Close()
	}
	fmt.Printf("many: %d connections open at once: opened in %v, one echo each in %v\n", manyConns, opened.Round(time.Millisecond), echoed.Round(time.Millisecond))
}

// sequential: seqConns connect/echo/close in a row (the kernel's socket
// count, reported by the stats, shows none leaked).
func sequential() {
	l := listen("tcp", "127.0.0.1:0")
	defer l.Close()
	start := time.Now()
	for i := 0; i < seqConns; i++ {
		c, err := net.Dial("tcp", l.Addr().String())
		check(fmt.Sprintf("sequential dial %d", i), err)
		c.Write([]byte("x"))
		b := make([]byte, 1)
		_, err = io.ReadFull(c, b)
		check("sequential read", err)
		c.Close()
	}
	fmt.Printf("seq: %d sequential connections ok (%.0f/s)\n", seqConns, float64(seqConns)/time.Since(start).Seconds())
}
