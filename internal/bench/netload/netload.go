// Package netload is the load generator of `gometal bench net`: keep-alive
// HTTP/1.1 clients, fixed-size request/response clients that think between
// requests, and bulk TCP streams. The same code runs on the host (load
// through QEMU's published ports) and inside the guest (over loopback), so
// both sides of a comparison are driven alike. It keeps its own HTTP
// client, a few lines over a bufio.Reader, so that the generator costs the
// loaded host little CPU next to QEMU.
package netload

import (
	"math"
	"slices"
	"time"
)

// Result is what one load run measured.
type Result struct {
	Requests int             // completed requests
	Errors   int             // failed requests (and connections that failed)
	Elapsed  time.Duration   // from the first request to the end of the run
	Lat      []time.Duration // every completed request's latency
}

// PerSec is completed requests per second.
func (r Result) PerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// Percentile returns the p-th percentile (0 < p <= 100) of the latencies
// by the nearest-rank method: the smallest value with at least p% of the
// samples at or below it. It sorts lat in place; 0 for no samples.
func Percentile(lat []time.Duration, p float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	slices.Sort(lat)
	rank := int(math.Ceil(p / 100 * float64(len(lat))))
	rank = min(max(rank, 1), len(lat))
	return lat[rank-1]
}

// MS converts a duration to milliseconds.
func MS(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Merge adds the results of concurrent clients together; the elapsed time
// is the longest.
func Merge(rs ...Result) Result {
	var out Result
	for _, r := range rs {
		out.Requests += r.Requests
		out.Errors += r.Errors
		out.Elapsed = max(out.Elapsed, r.Elapsed)
		out.Lat = append(out.Lat, r.Lat...)
	}
	return out
}

// Fields are a result as the key/value pairs of a BENCH line (the
// prefix names the figure: "http_" gives http_per_s, http_p50_ms ...).
func (r Result) Fields(prefix string) []any {
	return []any{prefix + "per_s", r.PerSec(), prefix + "p50_ms", MS(Percentile(r.Lat, 50)),
		prefix + "p99_ms", MS(Percentile(r.Lat, 99)), prefix + "requests", r.Requests, prefix + "errors", r.Errors}
}
