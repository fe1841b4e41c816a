package netload

// Every load against real servers on the host's loopback: the generator
// must count what it did (no timing is asserted).

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"
)

func listen(t *testing.T, serve func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}

func TestLoadsOnLoopback(t *testing.T) {
	ctx := context.Background()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "hello") })}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	r := HTTP(ctx, TCPDialer(ln.Addr().String()), 4, 100*time.Millisecond)
	if r.Requests == 0 || r.Errors != 0 || len(r.Lat) != r.Requests {
		t.Errorf("HTTP: %d requests, %d errors", r.Requests, r.Errors)
	}

	echo := TCPDialer(listen(t, Echo))
	r = RR(ctx, echo, 8, time.Millisecond, 100*time.Millisecond)
	if r.Requests == 0 || r.Errors != 0 {
		t.Errorf("RR: %d requests, %d errors", r.Requests, r.Errors)
	}
	h := Open(ctx, echo, 50, 8, 10*time.Second)
	if len(h.Conns) != 50 || h.Err != nil {
		t.Fatalf("Open: %d connections, %v", len(h.Conns), h.Err)
	}
	r = Cycle(h, 4, 100*time.Millisecond)
	h.Close()
	if r.Requests == 0 || r.Errors != 0 {
		t.Errorf("Cycle: %d requests, %d errors", r.Requests, r.Errors)
	}

	b := Send(ctx, TCPDialer(listen(t, Sink)), 2, 50*time.Millisecond)
	if b.Bytes == 0 || b.Err != nil {
		t.Errorf("Send: %d bytes, %v", b.Bytes, b.Err)
	}
	rl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	for range 2 {
		go func() {
			if c, err := net.Dial("tcp", rl.Addr().String()); err == nil {
				Source(c, 50*time.Millisecond)
			}
		}()
	}
	b = Receive(rl, 2, 10*time.Second)
	if b.Bytes == 0 || b.Err != nil || b.Elapsed == 0 {
		t.Errorf("Receive: %d bytes in %v, %v", b.Bytes, b.Elapsed, b.Err)
	}
}
