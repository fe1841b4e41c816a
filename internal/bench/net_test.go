package bench

import (
	"strings"
	"testing"
)

func TestNetKey(t *testing.T) {
	for _, c := range []struct {
		res  map[string]any
		want string
	}{
		{map[string]any{"what": "gvt", "mode": "threads"}, "gvt/threads"},
		{map[string]any{"what": "conns-lo", "n": 10000.0}, "conns-lo/10000"},
		{map[string]any{"what": "conns-dev", "n": 1000.0}, "conns-dev/1000"},
		{map[string]any{"what": "bulk", "dir": "in", "streams": 8.0}, "bulk/in/8"},
		{map[string]any{"what": "http-host"}, "http-host"},
	} {
		if got := netKey(c.res); got != c.want {
			t.Errorf("netKey(%v) = %q, want %q", c.res, got, c.want)
		}
	}
}

func TestNetParams(t *testing.T) {
	full, quick := strings.Join(netParamsFor(false, nil).args(), " "), strings.Join(netParamsFor(true, nil).args(), " ")
	if full != "-secs 3 -clients 200 -think 10ms -http-conns 16 -conns 1000,10000 -serve" {
		t.Errorf("full: %s", full)
	}
	if quick != "-secs 1 -clients 50 -think 10ms -http-conns 16 -conns 1000 -serve" {
		t.Errorf("quick: %s", quick)
	}
	if p := netParamsFor(true, []int{10000}); intList(p.loConns) != "10000" || intList(p.devConns) != "10000" || p.secs != 1 {
		t.Errorf("quick with -conns 10000: %+v", p)
	}
	s := &Session{O: Options{Mem: "256M"}}
	if m := netMem(s); m != "1G" {
		t.Errorf("netMem(256M) = %s", m)
	}
	s.O.Mem = "2G"
	if m := netMem(s); m != "2G" {
		t.Errorf("netMem(2G) = %s", m)
	}
}
