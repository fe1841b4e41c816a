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
// measured. A client whose connection fails counts an error and dials
// again.
func HTTP(ctx context.Context, dial Dialer, conns int, dur time.Duration) Result {
	ctx, cancel := context.WithTimeout(ctx, dur+30*time.Second)
	defer cancel()
	start := time.Now()
	end := start.Add(dur)
	results := make([]Result, conns)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = httpClient(ctx, dial, end)
		}()
	}
	wg.Wait()
	r := Merge(results...)
	r.Elapsed = time.Since(start)
	return r
}

func httpClient(ctx context.Context, dial Dialer, end time.Time) Result {
	var r Result
	for time.Now().Before(end) && ctx.Err() == nil {
		c, err := dial(ctx)
		if err != nil {
			r.Errors++
			time.Sleep(10 * time.Millisecond)
			continue
		}
		// A request in flight at the end may take its time, but not
		// forever: a stalled connection must not stall the run.
		c.SetDeadline(end.Add(10 * time.Second))
		br := bufio.NewReader(c)
		for time.Now().Before(end) {
			t := time.Now()
			if _, err = io.WriteString(c, Request); err != nil {
				break
			}
			status, _, err2 := ReadResponse(br)
			if err = err2; err != nil {
				break
			}
			if status != 200 {
				err = fmt.Errorf("status %d", status)
				break
			}
			r.Requests++
			r.Lat = append(r.Lat, time.Since(t))
		}
		c.Close()
		if err != nil {
			r.Errors++
		}
	}
	return r
}
