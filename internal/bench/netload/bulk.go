package netload

// Bulk TCP: streams that write as fast as they can for a fixed time. The
// receiver's count is what is reported, over the time until the last byte
// arrived (the sender's queued bytes included).

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

const chunk = 64 << 10

// hello is the byte a Sink sends first.
const hello = '+'

// SinkDialer dials a Sink and waits for its hello, dialing again (up to 20
// times) when the connection fails before it: through QEMU's published
// ports a connection the host's side accepted may still be reset before
// the guest takes it.
func SinkDialer(dial Dialer) Dialer {
	return func(ctx context.Context) (net.Conn, error) {
		var err error
		for try := 0; try < 20; try++ {
			var c net.Conn
			if c, err = dial(ctx); err != nil {
				return nil, err
			}
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			b := make([]byte, 1)
			if _, err = io.ReadFull(c, b); err == nil && b[0] == hello {
				c.SetReadDeadline(time.Time{})
				return c, nil
			}
			c.Close()
			if err == nil {
				return nil, fmt.Errorf("sink said %q, not hello", b)
			}
			time.Sleep(time.Duration(10+20*try) * time.Millisecond)
		}
		return nil, err
	}
}

// Bulk is what a bulk transfer measured.
type Bulk struct {
	Bytes   int64
	Elapsed time.Duration
	Err     error
}

// MBPerSec is megabytes (10^6) per second.
func (b Bulk) MBPerSec() float64 {
	if b.Elapsed <= 0 {
		return 0
	}
	return float64(b.Bytes) / 1e6 / b.Elapsed.Seconds()
}

// Sink serves one bulk stream: it says hello (one byte, so the sender knows
// the connection reached it), reads to end of file and replies with the
// number of bytes it read, in decimal, on a line.
func Sink(c net.Conn) {
	defer c.Close()
	if _, err := c.Write([]byte{hello}); err != nil {
		return
	}
	n, err := io.Copy(io.Discard, c)
	if err != nil {
		return
	}
	fmt.Fprintf(c, "%d\n", n)
}

// Source writes to c for dur and closes it.
func Source(c net.Conn, dur time.Duration) error {
	defer c.Close()
	buf := make([]byte, chunk)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	end := time.Now().Add(dur)
	c.SetWriteDeadline(end.Add(30 * time.Second))
	for time.Now().Before(end) {
		if _, err := c.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// Send opens streams connections to a Sink (each proved by the sink's
// hello), then writes on all of them for dur, and returns the bytes the
// sink counted over the time from the first write until the last count
// came back. Connecting is outside the clock, as in HTTP.
func Send(ctx context.Context, dial Dialer, streams int, dur time.Duration) Bulk {
	conns := make([]net.Conn, streams)
	errs := make([]error, streams)
	var wg sync.WaitGroup
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conns[i], errs[i] = SinkDialer(dial)(ctx)
		}()
	}
	wg.Wait()
	start := time.Now()
	var mu sync.Mutex
	var out Bulk
	for i := range streams {
		if errs[i] != nil {
			if out.Err == nil {
				out.Err = errs[i]
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := sendOne(conns[i], dur)
			mu.Lock()
			defer mu.Unlock()
			out.Bytes += n
			if err != nil && out.Err == nil {
				out.Err = err
			}
		}()
	}
	wg.Wait()
	out.Elapsed = time.Since(start)
	return out
}

func sendOne(c net.Conn, dur time.Duration) (int64, error) {
	defer c.Close()
	buf := make([]byte, chunk)
	end := time.Now().Add(dur)
	c.SetDeadline(end.Add(60 * time.Second))
	for time.Now().Before(end) {
		if _, err := c.Write(buf); err != nil {
			return 0, err
		}
	}
	if err := c.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		return 0, err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("reading the sink's count: %w", err)
	}
	return strconv.ParseInt(strings.TrimSpace(line), 10, 64)
}

// Receive accepts streams connections on ln and reads each to end of file
// (a Source on the other side); the time runs from the first accept to
// the last end of file.
func Receive(ln net.Listener, streams int, timeout time.Duration) Bulk {
	var out Bulk
	var mu sync.Mutex
	var wg sync.WaitGroup
	var first time.Time
	deadline := time.Now().Add(timeout)
	if d, ok := ln.(interface{ SetDeadline(time.Time) error }); ok {
		d.SetDeadline(deadline)
	}
	for range streams {
		c, err := ln.Accept()
		if err != nil {
			out.Err = err
			break
		}
		if first.IsZero() {
			first = time.Now()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			c.SetDeadline(deadline)
			n, err := io.Copy(io.Discard, c)
			mu.Lock()
			defer mu.Unlock()
			out.Bytes += n
			if err != nil && out.Err == nil {
				out.Err = err
			}
		}()
	}
	wg.Wait()
	if !first.IsZero() {
		out.Elapsed = time.Since(first)
	}
	return out
}
