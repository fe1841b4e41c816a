package main

// The servers the host's load reaches through QEMU's published ports.

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
	"gometal.dev/gometal/internal/bench/netload"
)

// Guest ports the host publishes (internal/bench/net.go uses the same).
const (
	httpPort = 80
	echoPort = 7
	sinkPort = 9
)

func httpServe(ln net.Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello from the net benchmark\n"))
	})
	http.Serve(ln, mux)
}

func listenAny(port int) net.Listener {
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
	if err != nil {
		guest.Fail("net", err)
	}
	return ln
}

// serveHost serves until GET /quit.
func serveHost() {
	go acceptEach(listenAny(echoPort), netload.Echo)
	go acceptEach(listenAny(sinkPort), netload.Sink)
	quit := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello from the net benchmark\n"))
	})
	mux.HandleFunc("/push", push)
	mux.HandleFunc("/mem", mem)
	mux.HandleFunc("/quit", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("bye\n"))
		select {
		case <-quit:
		default:
			close(quit)
		}
	})
	go http.Serve(listenAny(httpPort), mux)
	fmt.Println("net: serving on :80, :7, :9")
	<-quit
	time.Sleep(200 * time.Millisecond) // let /quit's reply leave
}

func acceptEach(ln net.Listener, serve func(net.Conn)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go serve(c)
	}
}

// push streams to the host: GET /push?to=10.0.2.2:PORT&streams=N&secs=S
// opens N connections and writes on each for S seconds; it replies when
// all are done (the host measures what arrived).
func push(w http.ResponseWriter, r *http.Request) {
	to := r.URL.Query().Get("to")
	streams, _ := strconv.Atoi(r.URL.Query().Get("streams"))
	secs, _ := strconv.ParseFloat(r.URL.Query().Get("secs"), 64)
	if to == "" || streams < 1 || streams > 64 || secs <= 0 {
		http.Error(w, "want to=ADDR&streams=1..64&secs=S", http.StatusBadRequest)
		return
	}
	dur := time.Duration(secs * float64(time.Second))
	errs := make(chan error, streams)
	for range streams {
		go func() {
			c, err := net.DialTimeout("tcp", to, 20*time.Second)
			if err == nil {
				err = netload.Source(c, dur)
			}
			errs <- err
		}()
	}
	var first error
	for range streams {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		http.Error(w, first.Error(), http.StatusBadGateway)
		return
	}
	w.Write([]byte("ok\n"))
}

// mem answers GET /mem with the guest's memory in use, MemTotal −
// MemAvailable of /proc/meminfo, the Go runtime's own share of it (what
// it holds from the kernel: MemStats Sys − HeapReleased) and the kernel's
// objects (meminfo's Slab: Linux's slab caches, gometal's kernel heap), in
// KiB: "used_kib N go_kib M slab_kib S". A collection first gives unused
// heap back (debug.FreeOSMemory), so garbage from opening connections
// does not count.
func mem(w http.ResponseWriter, r *http.Request) {
	debug.FreeOSMemory()
	kv, err := meminfo()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "used_kib %d go_kib %d slab_kib %d\n", kv["MemTotal"]-kv["MemAvailable"], (ms.Sys-ms.HeapReleased)/1024, kv["Slab"])
}

// meminfo is /proc/meminfo's figures (kB) by name.
func meminfo() (map[string]int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	kv := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err == nil {
			kv[k] = n
		}
	}
	for _, k := range []string{"MemTotal", "MemAvailable", "Slab"} {
		if _, ok := kv[k]; !ok {
			return nil, fmt.Errorf("/proc/meminfo has no %s", k)
		}
	}
	return kv, nil
}
