package netload

// Keep-alive HTTP/1.1 load: N connections, each sending GET / and reading
// the whole response before the next request (no pipelining), for a
// fixed time.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Request is the request every HTTP client sends.
const Request = "GET / HTTP/1.1\r\nHost: bench\r\nUser-Agent: gometal-netload\r\n\r\n"

// ReadResponse reads one HTTP/1.1 response with a Content-Length body
// (what net/http sends for a short reply) and returns its status code and
// body length. Chunked bodies are refused: the benchmark servers never
// send them.
func ReadResponse(br *bufio.Reader) (status, bodyLen int, err error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(line)
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/1.") {
		return 0, 0, fmt.Errorf("bad status line %q", strings.TrimSpace(line))
	}
	if status, err = strconv.Atoi(f[1]); err != nil {
		return 0, 0, fmt.Errorf("bad status line %q", strings.TrimSpace(line))
	}
	length := -1
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return 0, 0, err
		}
		h = strings.TrimRight(h, "\r\n")
		if h == "" {
			break
		}
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			return 0, 0, fmt.Errorf("bad header %q", h)
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || length < 0 {
				return 0, 0, fmt.Errorf("bad Content-Length %q", v)
			}
		case "transfer-encoding":
			return 0, 0, fmt.Errorf("transfer-encoding %q not supported", strings.TrimSpace(v))
		}
	}
	if length < 0 {
		return 0, 0, fmt.Errorf("no Content-Length")
	}
	if _, err := io.CopyN(io.Discard, br, int64(length)); err != nil {
		return 0, 0, err
	}
	return status, length, nil
}

// Dialer opens one connection (net.Dialer.DialContext, or one that
// retries the resets of QEMU's published ports).
type Dialer func(ctx context.Context) (net.Conn, error)

// TCPDialer dials addr, retrying a connection reset or refused a few times
// (QEMU's user network accepts a published port's connections on a host
// socket with a listen backlog of 1, so a burst sees some reset).
func TCPDialer(addr string) Dialer {
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		var err error
		for try := 0; try < 20; try++ {
			var c net.Conn
			if c, err = d.DialContext(ctx, "tcp", addr); err == nil {
				return c, nil
			}
			select {
			case <-ctx.Done():
				return nil, err
			case <-time.After(time.Duration(5+10*try) * time.Millisecond):
			}
		}
		return nil, err
	}
}

// HTTP runs conns keep-alive clients for dur and returns what they
// measured. Every client first opens its connection and sends one request
// that is not counted: the clock starts when all have had an answer (or
// after 30 s), so the rate measures serving, not connecting. (QEMU's user
// network accepts a published port's connections with a listen backlog of
// 1: in a burst of dials the host drops SYNs and retries them 1, 3 and 7 s
// later, and a client that waited so counted its seconds in the run.) A
// client whose connection fails counts an error and dials again.
func HTTP(ctx context.Context, dial Dialer, conns int, dur time.Duration) Result {
	ctx, cancel := context.WithTimeout(ctx, dur+60*time.Second)
	defer cancel()
	ready := make([]*httpConn, conns)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ready[i] = warmUp(ctx, dial, time.Now().Add(30*time.Second))
		}()
	}
	wg.Wait()
	start := time.Now()
	end := start.Add(dur)
	results := make([]Result, conns)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = httpClient(ctx, dial, ready[i], end)
		}()
	}
	wg.Wait()
	r := Merge(results...)
	r.Elapsed = time.Since(start)
	return r
}

// httpConn is a client's open connection.
type httpConn struct {
	c  net.Conn
	br *bufio.Reader
}

// warmUp dials and has one request answered before `by`; nil if it could
// not (the client then dials in the run).
func warmUp(ctx context.Context, dial Dialer, by time.Time) *httpConn {
	c, err := dial(ctx)
	if err != nil {
		return nil
	}
	c.SetDeadline(by)
	h := &httpConn{c: c, br: bufio.NewReader(c)}
	if _, err := request(h); err != nil {
		c.Close()
		return nil
	}
	return h
}

// request sends one request on h and reads its answer.
func request(h *httpConn) (time.Duration, error) {
	t := time.Now()
	if _, err := io.WriteString(h.c, Request); err != nil {
		return 0, err
	}
	status, _, err := ReadResponse(h.br)
	if err != nil {
		return 0, err
	}
	if status != 200 {
		return 0, fmt.Errorf("status %d", status)
	}
	return time.Since(t), nil
}

func httpClient(ctx context.Context, dial Dialer, h *httpConn, end time.Time) Result {
	var r Result
	for time.Now().Before(end) && ctx.Err() == nil {
		if h == nil {
			c, err := dial(ctx)
			if err != nil {
				r.Errors++
				time.Sleep(10 * time.Millisecond)
				continue
			}
			h = &httpConn{c: c, br: bufio.NewReader(c)}
		}
		// A request in flight at the end may take its time, but not
		// forever: a stalled connection must not stall the run.
		h.c.SetDeadline(end.Add(10 * time.Second))
		var err error
		for time.Now().Before(end) {
			var lat time.Duration
			if lat, err = request(h); err != nil {
				break
			}
			r.Requests++
			r.Lat = append(r.Lat, lat)
		}
		h.c.Close()
		h = nil
		if err != nil {
			r.Errors++
		}
	}
	if h != nil {
		h.c.Close()
	}
	return r
}
