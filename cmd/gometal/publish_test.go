package main

import (
	"reflect"
	"strings"
	"testing"

	"gometal.dev/gometal/internal/qemu"
)

func TestParsePublish(t *testing.T) {
	good := map[string]qemu.Forward{
		"8080:80":     {Proto: "tcp", Host: 8080, Guest: 80},
		"8080:80/tcp": {Proto: "tcp", Host: 8080, Guest: 80},
		"5353:53/udp": {Proto: "udp", Host: 5353, Guest: 53},
		"65535:1":     {Proto: "tcp", Host: 65535, Guest: 1},
	}
	for spec, want := range good {
		got, err := parsePublish(spec)
		if err != nil || got != want {
			t.Errorf("parsePublish(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	bad := map[string]string{
		"8080":         "want HOST:GUEST",
		"8080:80/sctp": `protocol "sctp"`,
		"0:80":         "host port",
		"80:65536":     "guest port",
		"x:80":         "host port",
		"8080:":        "guest port",
		"1.2.3.4:1:2":  "host port",
	}
	for spec, want := range bad {
		if _, err := parsePublish(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parsePublish(%q): error %v, want one saying %q", spec, err, want)
		}
	}
}

func TestParsePublishesDuplicate(t *testing.T) {
	if _, err := parsePublishes([]string{"8080:80", "8080:81"}); err == nil || !strings.Contains(err.Error(), "already published") {
		t.Errorf("same host port twice: %v", err)
	}
	got, err := parsePublishes([]string{"8080:80", "8080:80/udp"})
	want := []qemu.Forward{{Proto: "tcp", Host: 8080, Guest: 80}, {Proto: "udp", Host: 8080, Guest: 80}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("tcp and udp on one port: %+v, %v", got, err)
	}
}

func TestQemuNet(t *testing.T) {
	if qemuNet(netFlag{}, nil) != nil {
		t.Error("no -net, no -p: a network device anyway")
	}
	if qemuNet(netFlag{}, []qemu.Forward{{Proto: "tcp", Host: 1, Guest: 2}}) == nil {
		t.Error("-p alone should imply -net")
	}
	if n := qemuNet(netFlag{on: true, tap: "tap7"}, nil); n == nil || n.Tap != "tap7" {
		t.Errorf("-net=tap=tap7: %+v", n)
	}
}

// TestNetFlag: -net alone, -net=user, -net=tap=IFNAME with an address plan
// (also written -net tap=...), and what is refused.
func TestNetFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want netFlag
		opt  string
	}{
		{[]string{"-net", "prog"}, netFlag{on: true}, ""},
		{[]string{"-net=user", "prog"}, netFlag{on: true}, ""},
		{[]string{"-net=tap=tap0", "prog"}, netFlag{on: true, tap: "tap0"}, "net=dhcp"},
		{[]string{"-net", "tap=gm1,ip=10.9.0.2/24,gw=10.9.0.1", "prog"}, netFlag{on: true, tap: "gm1", plan: "ip=10.9.0.2/24,gw=10.9.0.1"}, "net=ip=10.9.0.2/24,gw=10.9.0.1"},
		{[]string{"prog", "-net", "tap=x"}, netFlag{}, ""},
		{[]string{"-timeout", "150s", "-cores", "2", "-v", "-net", "tap=t1", "prog", "-net", "tap=x"}, netFlag{on: true, tap: "t1"}, "net=dhcp"},
	} {
		f, err := parseRunFlags(tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if f.net != tc.want || netKernelOption(f.net) != tc.opt {
			t.Errorf("%q: %+v (kernel option %q), want %+v (%q)", tc.args, f.net, netKernelOption(f.net), tc.want, tc.opt)
		}
	}
	for _, bad := range [][]string{
		{"-net=tap=", "prog"},
		{"-net=tap=t0,ip=10.0.0.300", "prog"},
		{"-net=tap=t0,ip=10.0.0.1/40", "prog"},
		{"-net=tap=t0,mtu=9000", "prog"},
		{"-net=tap=t0,gw=10.0.0.1", "prog"},
		{"-net=tap=t0,dns=10.0.0.1", "prog"},
		{"-net=bridge", "prog"},
		{"-net=tap=t0", "-p", "8080:80", "prog"},
	} {
		if _, err := parseRunFlags(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
