package netload

// Fixed-size request/response over TCP: the server echoes every MsgSize
// bytes it reads. Clients that think between requests model many slow
// users of an I/O-bound server (seed 002); the connection-scaling run holds
// many connections open and sends requests over all of them in turn.

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// MsgSize is the size of one request and of its response.
const MsgSize = 64

// Echo serves one connection: every MsgSize bytes read are written back.
func Echo(c net.Conn) {
	defer c.Close()
	buf := make([]byte, MsgSize)
	for {
		if _, err := io.ReadFull(c, buf); err != nil {
			return
		}
		if _, err := c.Write(buf); err != nil {
			return
		}
	}
}

// roundTrip sends one request on c and waits for its response.
func roundTrip(c net.Conn, buf []byte) error {
	if _, err := c.Write(buf); err != nil {
		return err
	}
	_, err := io.ReadFull(c, buf)
	return err
}

// RR runs clients connections for dur, each sending a request, waiting for
// the response and then sleeping think before the next.
func RR(ctx context.Context, dial Dialer, clients int, think, dur time.Duration) Result {
	start := time.Now()
	end := start.Add(dur)
	results := make([]Result, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[i]
			c, err := dial(ctx)
			if err != nil {
				r.Errors++
				return
			}
			defer c.Close()
			c.SetDeadline(end.Add(10 * time.Second))
			buf := make([]byte, MsgSize)
			// Clients start spread over one think time, not in a burst.
			time.Sleep(time.Duration(i) * think / time.Duration(clients))
			for time.Now().Before(end) {
				t := time.Now()
				if err := roundTrip(c, buf); err != nil {
					r.Errors++
					return
				}
				r.Requests++
				r.Lat = append(r.Lat, time.Since(t))
				time.Sleep(think)
			}
		}()
	}
	wg.Wait()
	r := Merge(results...)
	r.Elapsed = time.Since(start)
	return r
}

// Held is a set of open connections.
type Held struct {
	Conns  []net.Conn
	Open   time.Duration // time to open them all
	Failed int           // connections that could not be opened
	Err    error         // the first failure
}

// Close closes them all.
func (h *Held) Close() {
	for _, c := range h.Conns {
		c.Close()
	}
	h.Conns = nil
}

// Open dials n connections, at most par at a time, and proves each one
// with a round trip (a connection a server has not accepted yet is not
// counted as open), dialing again a few times when the proof fails. It
// stops dialing after 50 failures.
func Open(ctx context.Context, dial Dialer, n, par int, timeout time.Duration) *Held {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h := &Held{}
	var mu sync.Mutex
	start := time.Now()
	next := 0
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, MsgSize)
			for {
				mu.Lock()
				if next >= n || h.Failed >= 50 || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				c, err := openOne(ctx, dial, buf)
				mu.Lock()
				if err != nil {
					h.Failed++
					if h.Err == nil {
						h.Err = err
					}
				} else {
					h.Conns = append(h.Conns, c)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	h.Open = time.Since(start)
	if h.Failed > 0 && h.Err != nil {
		h.Err = fmt.Errorf("%d of %d failed, first: %w", h.Failed, n, h.Err)
	}
	return h
}

// openOne dials and proves a connection, dialing again (3 times at most)
// when the proof fails: a connection reset before the server took it.
func openOne(ctx context.Context, dial Dialer, buf []byte) (net.Conn, error) {
	var err error
	for try := 0; try < 3; try++ {
		var c net.Conn
		if c, err = dial(ctx); err != nil {
			return nil, err
		}
		// A server that never answers (a SYN dropped behind a published
		// port's accept) costs one attempt 10 s, not the whole run.
		dl := time.Now().Add(10 * time.Second)
		if d, ok := ctx.Deadline(); ok && d.Before(dl) {
			dl = d
		}
		c.SetDeadline(dl)
		if err = roundTrip(c, buf); err == nil {
			c.SetDeadline(time.Time{})
			return c, nil
		}
		c.Close()
		if ctx.Err() != nil {
			break
		}
	}
	return nil, err
}

// Cycle sends requests for dur over all held connections: workers
// goroutines each take their share of the connections and send one request
// on each in turn.
func Cycle(h *Held, workers int, dur time.Duration) Result {
	start := time.Now()
	end := start.Add(dur)
	workers = max(1, min(workers, len(h.Conns)))
	results := make([]Result, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[w]
			buf := make([]byte, MsgSize)
			for i := w; time.Now().Before(end); i += workers {
				if i >= len(h.Conns) {
					i = w
				}
				c := h.Conns[i]
				c.SetDeadline(end.Add(10 * time.Second))
				t := time.Now()
				if err := roundTrip(c, buf); err != nil {
					r.Errors++
					return
				}
				r.Requests++
				r.Lat = append(r.Lat, time.Since(t))
			}
		}()
	}
	wg.Wait()
	r := Merge(results...)
	r.Elapsed = time.Since(start)
	return r
}
