// Command net is the guest side of `gometal bench net`, the same binary on
// gometal and on Linux. It first measures over loopback, clients and
// servers both in this program, one BENCH line per figure:
//
//	gvt       seed 002's I/O argument: a request/response server that
//	          handles each connection on a goroutine ("goroutines") or on a
//	          goroutine locked to its own OS thread ("threads"), under
//	          -clients slow clients that think -think between requests
//	http-lo   a net/http hello server under -http-conns keep-alive clients
//	conns-lo  -conns connections held open at once, requests/s over all
//	          of them in turn (measured last, after serving the host)
//
// With -serve, it then serves the host's load through the published
// ports until the host asks it to stop: net/http on :80 (GET / says hello,
// GET /push?to=ADDR&streams=N&secs=S streams to the host for the bulk
// guest → host figure, GET /mem reports the memory in use for the
// per-connection figure, GET /quit powers off), request/response echo on :7
// and a bulk sink on :9.
//
// With -linux (the host passes it when booting Linux as /init) it first
// mounts proc, sysfs and devtmpfs, loads the modules packed under
// /modules (virtio_mmio, failover, net_failover, virtio_net) and brings up
// lo and eth0 (10.0.2.15/24 via 10.0.2.2), as gometal does by itself.
//
//	net [-linux] [-secs 3] [-clients 200] [-think 10ms] [-http-conns 16]
//	    [-conns 1000,10000] [-serve]
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"runtime"
	"syscall"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
	"gometal.dev/gometal/internal/bench/netload"
	"gometal.dev/gometal/internal/uioinit"
)

func main() {
	linux := flag.Bool("linux", false, "set up Linux's network first (Linux as /init)")
	secs := flag.Float64("secs", 3, "seconds each load runs")
	clients := flag.Int("clients", 200, "slow clients of the goroutines-vs-threads servers")
	think := flag.Duration("think", 10*time.Millisecond, "think time of a slow client between requests")
	httpConns := flag.Int("http-conns", 16, "keep-alive clients of the loopback HTTP load")
	conns := flag.String("conns", "1000,10000", "connection counts held open over loopback")
	serve := flag.Bool("serve", false, "then serve the host's load until GET /quit")
	flag.Parse()
	if *linux {
		mods, err := uioinit.Prepare()
		if err != nil {
			guest.Fail("net", err)
		}
		if err := linuxNetwork(); err != nil {
			guest.Fail("net", fmt.Errorf("linux network: %v (modules %v)", err, mods))
		}
	}
	// 10,000 connections over loopback are 20,000 descriptors.
	lim := syscall.Rlimit{Cur: 65536, Max: 65536}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		guest.Fail("net", fmt.Errorf("setrlimit NOFILE 65536: %v", err))
	}
	dur := time.Duration(*secs * float64(time.Second))
	ctx := context.Background()
	cpus := runtime.NumCPU()

	// A short unreported load first: right after boot (Linux especially)
	// the first connections pay one-time costs that are no part of serving.
	netload.RR(ctx, netload.TCPDialer(listenLoop(false)), *clients, *think, dur/4)
	for _, mode := range []string{"goroutines", "threads"} {
		addr := listenLoop(mode == "threads")
		r := netload.RR(ctx, netload.TCPDialer(addr), *clients, *think, dur)
		report("what", "gvt", "mode", mode, "cpus", cpus, "clients", *clients, "think_ms", netload.MS(*think), r.Fields(""))
	}

	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		guest.Fail("net", err)
	}
	go httpServe(hl)
	r := netload.HTTP(ctx, netload.TCPDialer(hl.Addr().String()), *httpConns, dur)
	report("what", "http-lo", "cpus", cpus, "conns", *httpConns, r.Fields(""))

	// Serving the host comes before holding many connections, so that a
	// guest that does not survive 10,000 still gives the host's figures.
	if *serve {
		serveHost()
	}
	// The host's GET /quit has its reply; now the connections.
	echo := listenLoop(false)
	for _, n := range guest.Ints(*conns) {
		h := netload.Open(ctx, netload.TCPDialer(echo), n, 32, 5*time.Minute)
		kv := []any{"what", "conns-lo", "n", n, "cpus", cpus, "opened", len(h.Conns), "open_s", h.Open.Seconds()}
		if h.Err != nil {
			kv = append(kv, "problem", h.Err.Error())
		}
		if len(h.Conns) > 0 {
			kv = append(kv, netload.Cycle(h, 32, dur).Fields(""))
		}
		h.Close()
		report(kv...)
	}

	guest.PowerOff()
}

// report is guest.Report with nested key/value slices flattened.
func report(kv ...any) {
	var flat []any
	for _, x := range kv {
		if s, ok := x.([]any); ok {
			flat = append(flat, s...)
		} else {
			flat = append(flat, x)
		}
	}
	guest.Report("net", flat...)
}

// listenLoop starts an echo server on a loopback port; with locked, each
// connection's goroutine is locked to its own OS thread, which exits with
// it (the goroutine never unlocks).
func listenLoop(locked bool) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		guest.Fail("net", err)
	}
	go acceptLoop(ln, locked)
	return ln.Addr().String()
}

func acceptLoop(ln net.Listener, locked bool) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			if locked {
				runtime.LockOSThread()
			}
			netload.Echo(c)
		}()
	}
}
