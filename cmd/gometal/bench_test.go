package main

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseBenchArgs(t *testing.T) {
	f, names, err := parseBenchArgs([]string{"mandelbrot", "-core-counts", "1,2", "micro", "-quick", "-linux", "-runs", "5"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(names, []string{"mandelbrot", "micro"}) {
		t.Errorf("names = %q", names)
	}
	if f.coreCounts != "1,2" || !f.quick || !f.linux || f.runs != 5 || f.out != "" {
		t.Errorf("flags = %+v", f)
	}
	if _, _, err := parseBenchArgs([]string{"nosuch"}); err == nil || !strings.Contains(err.Error(), "unknown benchmark") {
		t.Errorf("unknown benchmark: err = %v", err)
	}
	if _, _, err := parseBenchArgs([]string{"-bogus"}); err == nil {
		t.Error("unknown flag accepted")
	}
}

func TestParseCoreCounts(t *testing.T) {
	got, err := parseCoreCounts("1, 2,4")
	if err != nil || !reflect.DeepEqual(got, []int{1, 2, 4}) {
		t.Errorf("parseCoreCounts = %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "2,1", "1,1", "x", "65"} {
		if _, err := parseCoreCounts(bad); err == nil {
			t.Errorf("parseCoreCounts(%q) succeeded", bad)
		}
	}
}

func TestParseConns(t *testing.T) {
	got, err := parseConns("1000, 10000")
	if err != nil || !reflect.DeepEqual(got, []int{1000, 10000}) {
		t.Errorf("parseConns = %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "x", "1000,", "100001", "-5"} {
		if _, err := parseConns(bad); err == nil {
			t.Errorf("parseConns(%q) succeeded", bad)
		}
	}
	var out, errb bytes.Buffer
	if code := dispatch([]string{"bench", "-conns", "0", "net"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-conns") {
		t.Errorf("-conns 0: exit %d, stderr %q", code, errb.String())
	}
}

func TestBenchUsageErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"bench", "-runs", "-1"}, &out, &errb); code != 2 {
		t.Errorf("-runs -1: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := dispatch([]string{"bench", "-core-counts", "3,2"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "increasing") {
		t.Errorf("-core-counts 3,2: exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	if code := dispatch([]string{"help", "bench"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "mandelbrot") {
		t.Errorf("help bench: exit %d, %q", code, out.String())
	}
}

// A report goes where -out says, else to a new dated file under
// docs/benchmarks/, never over the curated page.
func TestBenchOut(t *testing.T) {
	now := time.Date(2026, 12, 6, 7, 5, 0, 0, time.FixedZone("X", 3600))
	if got := benchOut("", now); got != filepath.Join("docs", "benchmarks", "run-2026-12-06-0605.md") {
		t.Errorf("default = %q", got)
	}
	if got := benchOut("r.md", now); got != "r.md" {
		t.Errorf("-out r.md = %q", got)
	}
}
