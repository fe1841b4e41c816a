package netload

import (
	"bufio"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {0.5, time.Millisecond}} {
		if got := Percentile(lat, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if Percentile(nil, 99) != 0 {
		t.Error("no samples: want 0")
	}
	if got := Percentile([]time.Duration{3, 1, 2}, 50); got != 2 {
		t.Errorf("p50 of 1,2,3 = %v", got)
	}
}

func TestMergeAndRate(t *testing.T) {
	r := Merge(Result{Requests: 10, Elapsed: time.Second, Lat: []time.Duration{1}}, Result{Requests: 30, Errors: 1, Elapsed: 2 * time.Second})
	if r.Requests != 40 || r.Errors != 1 || r.Elapsed != 2*time.Second || len(r.Lat) != 1 || r.PerSec() != 20 {
		t.Errorf("merged %+v, %v/s", r, r.PerSec())
	}
	if (Result{}).PerSec() != 0 || (Bulk{Bytes: 5e6, Elapsed: 2 * time.Second}).MBPerSec() != 2.5 {
		t.Error("rates")
	}
}

func TestReadResponse(t *testing.T) {
	in := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\ncontent-length: 6\r\n\r\nhello\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
	br := bufio.NewReader(strings.NewReader(in))
	if st, n, err := ReadResponse(br); st != 200 || n != 6 || err != nil {
		t.Fatalf("first: %d %d %v", st, n, err)
	}
	if st, n, err := ReadResponse(br); st != 404 || n != 0 || err != nil {
		t.Fatalf("second (keep-alive): %d %d %v", st, n, err)
	}
	for _, bad := range []string{
		"SSH-2.0\r\n\r\n",
		"HTTP/1.1 abc OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\n\r\n",                           // no length
		"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort", // truncated body
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nnocolon\r\n\r\n",
	} {
		if _, _, err := ReadResponse(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
