// Command net exercises gometal's sockets the way Go programs use them:
// TCP echo over 127.0.0.1, ::1 and a dual-stack listener, many concurrent
// connections, bulk transfer with a checksum, half-close, refusal, the
// accept backlog, resets, UDP, socket timeouts, ICMP echo, AF_UNIX
// (stream, datagram, socketpair), an HTTP server and client, sequential connections without leaks, and
// the raw calls' errnos. Arguments name phases (default: all but "many");
// "seq=N", "many=N" and "bulk=MiB" set sizes.
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

var (
	manyConns = 1000
	seqConns  = 10000
	bulkMiB   = 8
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL net: "+format+"\n", args...)
	os.Exit(1)
}

func check(what string, err error) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

var phases = []struct {
	name string
	run  func()
}{
	{"raw", rawCalls},
	{"echo", echoAll},
	{"concurrent", concurrent},
	{"bulk", bulk},
	{"halfclose", halfClose},
	{"refused", refused},
	{"backlog", backlog},
	{"reset", reset},
	{"udp", udp},
	{"timeo", timeouts},
	{"icmp", icmpPhase},
	{"unix", unixSockets},
	{"http", httpPhase},
	{"seq", sequential},
	{"many", many},
}

func main() {
	want := map[string]bool{}
	for _, a := range os.Args[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			n, err := strconv.Atoi(v)
			check("argument "+a, err)
			switch k {
			case "many":
				manyConns = n
			case "seq":
				seqConns = n
			case "bulk":
				bulkMiB = n
			default:
				fail("unknown setting %q", k)
			}
			continue
		}
		want[a] = true
	}
	for _, p := range phases {
		if (len(want) == 0 && p.name != "many") || want[p.name] {
			p.run()
		}
	}
	fmt.Println("PASS net")
}
