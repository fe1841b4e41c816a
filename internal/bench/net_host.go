package bench

// The host's half of the net benchmark: while the guest serves (bench/net
// -serve), load it through QEMU's published ports with internal/bench/netload
// and report in the same key/value form as the guest's BENCH lines.

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"

	"gometal.dev/gometal/internal/bench/netload"
	"gometal.dev/gometal/internal/qemu"
)

// netGuestPorts are bench/net's ports: HTTP, request/response echo, bulk sink.
var netGuestPorts = [3]int{80, 7, 9}

// TapDevice is the tap the net benchmark's tap boots use: made by the
// bench command in its network namespace, 10.0.2.2/24 on the host's side,
// so the guest's addresses (10.0.2.15, gateway 10.0.2.2) are those of
// QEMU's user network for both kernels.
const TapDevice = "gmtap0"

// netHost is one boot's host side.
type netHost struct {
	tap     bool   // through TapDevice: the guest's own ports at 10.0.2.15, bulk only
	ports   [3]int // host ports forwarded to netGuestPorts
	dur     time.Duration
	conns   []int // connection counts held open through the device
	httpN   int   // keep-alive HTTP clients
	results []map[string]any
	note    string // why the host phase ended early, if it did
}

// newNetHost picks free host ports for a boot.
func newNetHost(dur time.Duration, conns []int, httpN int) (*netHost, *qemu.Net, error) {
	h := &netHost{dur: dur, conns: conns, httpN: httpN}
	n := &qemu.Net{}
	for i := range h.ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, err
		}
		h.ports[i] = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		n.Forwards = append(n.Forwards, qemu.Forward{Proto: "tcp", Host: h.ports[i], Guest: netGuestPorts[i]})
	}
	return h, n, nil
}

// newTapHost is the host side of a boot on TapDevice.
func newTapHost(dur time.Duration) (*netHost, *qemu.Net) {
	return &netHost{tap: true, dur: dur}, &qemu.Net{Tap: TapDevice}
}

func (h *netHost) addr(i int) string {
	if h.tap {
		return fmt.Sprintf("10.0.2.15:%d", netGuestPorts[i])
	}
	return fmt.Sprintf("127.0.0.1:%d", h.ports[i])
}

func (h *netHost) add(kv ...any) {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		switch v := kv[i+1].(type) {
		case int:
			m[kv[i].(string)] = float64(v)
		default:
			m[kv[i].(string)] = v
		}
	}
	h.results = append(h.results, m)
}

// run waits for the guest's HTTP server, loads it, and asks it to power
// off; on ctx's end (the boot is over) it gives up. It stops QEMU through
// stop when the guest does not take /quit.
func (h *netHost) run(ctx context.Context, stop chan<- os.Signal) {
	client := &http.Client{Timeout: 5 * time.Second}
	base := "http://" + h.addr(0)
	for {
		if resp, err := client.Get(base + "/"); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		select {
		case <-ctx.Done():
			h.note = "the guest's server never answered"
			return
		case <-time.After(300 * time.Millisecond):
		}
	}
	if !h.tap {
		r := netload.HTTP(ctx, netload.TCPDialer(h.addr(0)), h.httpN, h.dur)
		h.add(append([]any{"what", "http-host", "conns", h.httpN}, r.Fields("")...)...)
	}
	for _, streams := range []int{1, 8} {
		b := netload.Send(ctx, netload.TCPDialer(h.addr(2)), streams, h.dur)
		h.addBulk("in", streams, b)
		h.addBulk("out", streams, h.pull(ctx, streams))
	}
	memClient := &http.Client{Timeout: 60 * time.Second} // a collection over 10,000 goroutines
	for _, n := range h.conns {
		before, errBefore := settledMem(ctx, memClient, base)
		held := netload.Open(ctx, netload.TCPDialer(h.addr(1)), n, 16, 3*time.Minute)
		kv := []any{"what", "conns-dev", "n", n, "opened", len(held.Conns), "open_s", held.Open.Seconds()}
		if held.Err != nil {
			kv = append(kv, "problem", held.Err.Error())
		}
		kv = append(kv, memPerConn(ctx, memClient, base, before, errBefore, len(held.Conns))...)
		if len(held.Conns) > 0 {
			kv = append(kv, netload.Cycle(held, 32, h.dur).Fields("")...)
		}
		held.Close()
		h.add(kv...)
		if ctx.Err() != nil {
			return
		}
	}
	quit := &http.Client{Timeout: 60 * time.Second}
	if resp, err := quit.Get(base + "/quit"); err == nil {
		resp.Body.Close()
		return
	} else {
		h.note = "GET /quit failed (" + err.Error() + "); QEMU was stopped"
	}
	stop <- syscall.SIGTERM
}

// guestMem asks the guest for its memory in use, the Go runtime's share
// of it and the kernel's objects (bench/net's GET /mem), in KiB.
func guestMem(ctx context.Context, client *http.Client, base string) ([3]float64, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/mem", nil)
	resp, err := client.Do(req)
	if err != nil {
		return [3]float64{}, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var m [3]float64
	if _, err := fmt.Sscanf(string(body), "used_kib %g go_kib %g slab_kib %g", &m[0], &m[1], &m[2]); err != nil {
		return m, fmt.Errorf("GET /mem: %q: %v", body, err)
	}
	return m, nil
}

// memIdleWait is how long held connections sit idle before the guest's
// memory is read: timers and delayed acknowledgements of the opening
// have run out by then on both kernels.
const memIdleWait = 2 * time.Second

// settledMem is the guest's memory once what came before has settled
// (connections of the previous phase closing).
func settledMem(ctx context.Context, client *http.Client, base string) ([3]float64, error) {
	select {
	case <-ctx.Done():
		return [3]float64{}, ctx.Err()
	case <-time.After(memIdleWait):
	}
	return guestMem(ctx, client, base)
}

// memPerConn is the memory n idle connections take, per connection (KiB):
// the guest's memory in use after they were opened and sat idle, less
// before; the Go program's own share (goroutines, buffers, its netFDs),
// the rest (the kernel's), and of that the kernel's objects (slab).
// Nothing when either reading failed.
func memPerConn(ctx context.Context, client *http.Client, base string, before [3]float64, errBefore error, n int) []any {
	if errBefore != nil || n == 0 {
		return nil
	}
	after, err := settledMem(ctx, client, base)
	if err != nil {
		return nil
	}
	per := func(i int) float64 { return (after[i] - before[i]) / float64(n) }
	return []any{"mem_kib", per(0), "go_kib", per(1), "kernel_kib", per(0) - per(1), "slab_kib", per(2)}
}

// pull asks the guest to stream to a listener on the host (10.0.2.2 is
// the host's loopback on QEMU's user network) and measures what arrives.
func (h *netHost) pull(ctx context.Context, streams int) netload.Bulk {
	listen := "127.0.0.1:0" // 10.0.2.2 inside is the host's loopback on slirp
	if h.tap {
		listen = "10.0.2.2:0" // the tap's own address
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return netload.Bulk{Err: err}
	}
	defer ln.Close()
	got := make(chan netload.Bulk, 1)
	go func() { got <- netload.Receive(ln, streams, h.dur+2*time.Minute) }()
	url := fmt.Sprintf("http://%s/push?to=10.0.2.2:%d&streams=%d&secs=%g", h.addr(0), ln.Addr().(*net.TCPAddr).Port, streams, h.dur.Seconds())
	client := &http.Client{Timeout: h.dur + 2*time.Minute}
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := client.Do(req)
	if err != nil {
		ln.Close()
		<-got
		return netload.Bulk{Err: err}
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	b := <-got
	if resp.StatusCode != 200 && b.Err == nil {
		b.Err = fmt.Errorf("guest: %s", body)
	}
	return b
}

func (h *netHost) addBulk(dir string, streams int, b netload.Bulk) {
	what := "bulk"
	if h.tap {
		what = "bulk-tap"
	}
	kv := []any{"what", what, "dir", dir, "streams", streams, "bytes", float64(b.Bytes), "secs", b.Elapsed.Seconds()}
	if b.Err == nil {
		kv = append(kv, "mb_per_s", b.MBPerSec())
	} else {
		kv = append(kv, "problem", b.Err.Error())
	}
	h.add(kv...)
}

// NetHostLoad runs the host's side of the net benchmark against a guest
// (bench/net -serve) whose ports 80, 7 and 9 are published on the given
// host ports, and powers it off; it returns the results and why the load
// ended early, if it did. tests/ boots it so the benchmark cannot rot.
func NetHostLoad(ctx context.Context, ports [3]int, dur time.Duration, conns []int, httpConns int) ([]map[string]any, string) {
	h := &netHost{ports: ports, dur: dur, conns: conns, httpN: httpConns}
	h.run(ctx, make(chan os.Signal, 1))
	return h.results, h.note
}
