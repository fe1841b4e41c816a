package bench

// The net benchmark's part of the report: four tables, gometal/Linux
// ratios, and a plot of HTTP requests/s against harts.

import (
	"fmt"
	"path/filepath"
	"strings"

	"gometal.dev/gometal/internal/bench/plot"
)

// cell is the median of key for kind k at c harts, or why there is none.
func (nr *netRun) cell(k Kind, c int, key, format string) string {
	full := fmt.Sprintf("%s/c%d/%s", k, c, key)
	if _, ok := nr.sm.med(full); !ok {
		if why, ok := nr.sm.fail[full]; ok {
			return "failed: " + shorten(why, 80)
		}
		if why, ok := nr.failing[fmt.Sprintf("%s/c%d", k, c)]; ok {
			return "boot failed: " + shorten(why, 80)
		}
	}
	return nr.sm.cell(full, format)
}

func shorten(s string, n int) string {
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// ratio is gometal/Linux for key at c harts.
func (nr *netRun) ratio(c int, key string) string {
	return nr.sm.ratio(fmt.Sprintf("%s/c%d/%s", Gometal, c, key), fmt.Sprintf("%s/c%d/%s", Linux, c, key))
}

func (nr *netRun) linux() bool { return len(nr.kinds) > 1 }

// rows builds one table: for each hart count and each sub-key, the given
// fields of every kernel, then the gometal/Linux ratio of the first.
func (nr *netRun) table(s *Session, label string, subs [][2]string, fields [][2]string) string {
	header := []string{"harts", label}
	for _, k := range nr.kinds {
		for _, f := range fields {
			header = append(header, string(k)+" "+f[0])
		}
	}
	if nr.linux() {
		header = append(header, "gometal/Linux "+fields[0][0])
	}
	var rows [][]string
	for _, c := range s.O.Cores {
		for _, sub := range subs {
			row := []string{fmt.Sprint(c), sub[1]}
			for _, k := range nr.kinds {
				for _, f := range fields {
					row = append(row, nr.cell(k, c, sub[0]+"/"+f[0], f[1]))
				}
			}
			if nr.linux() {
				row = append(row, nr.ratio(c, sub[0]+"/"+fields[0][0]))
			}
			rows = append(rows, row)
		}
	}
	return table(header, rows)
}

var (
	netRRFields   = [][2]string{{"per_s", "%.0f"}, {"p50_ms", "%.2f"}, {"p99_ms", "%.1f"}}
	netConnFields = [][2]string{{"per_s", "%.0f"}, {"p99_ms", "%.1f"}, {"opened", "%.0f"}, {"open_s", "%.1f"}}
)

func (nr *netRun) section(s *Session) Section {
	var b strings.Builder
	nr.writeIntro(&b, s)
	nr.writeLoads(&b, s)
	nr.writeConns(&b, s)
	nr.writeIssues(&b, s)
	sec := Section{Body: b.String()}
	if nr.linux() {
		sec.Notes = nr.summary(s)
	}
	return sec
}

// writeIntro says what bench/net runs, on what, and how Linux is set up.
func (nr *netRun) writeIntro(b *strings.Builder, s *Session) {
	p := nr.p
	fmt.Fprintf(b, "bench/net (`%s`) on both kernels with the same network device: `-netdev user`\n", strings.Join(p.args(), " "))
	b.WriteString("(QEMU's slirp) and `-device virtio-net-device` (virtio-mmio), host ports published\n")
	b.WriteString("with `hostfwd` to the guest's :80 (net/http), :7 (64-byte request/response echo)\nand :9 (bulk sink). ")
	fmt.Fprintf(b, "Both kernels get `-m %s` (10,000 loopback connections need more than 256M).\n", netMem(s))
	fmt.Fprintf(b, "Every load runs for %g s; medians of %d run(s). Loopback figures are\n", p.secs, s.O.Runs)
	b.WriteString("measured inside the guest (clients and server in the one program, guest clock);\n")
	b.WriteString("figures through the device by the host's load generator (internal/bench/netload,\n")
	b.WriteString("the same code as the guest's clients, host clock), which shares the host's cores\nwith QEMU.\n\n")
	switch {
	case nr.modErr != nil:
		fmt.Fprintf(b, "Linux: not measured: %v\n\n", nr.modErr)
	case nr.linux():
		fmt.Fprintf(b, "Linux (%s) loads %s from /init, in that order, then brings up\n`lo` and `eth0` (10.0.2.15/24, default route via 10.0.2.2) with ioctls\n(bench/net/linuxnet.go); gometal configures the same address itself.\n\n",
			s.LinuxK.Package, strings.Join(nr.mods, ", "))
	}

}

// writeLoads writes the request/response, HTTP and bulk figures.
func (nr *netRun) writeLoads(b *strings.Builder, s *Session) {
	p := nr.p
	b.WriteString("### Goroutines vs threads for I/O (seed 002), loopback\n\n")
	fmt.Fprintf(b, "%d slow clients (goroutines in the guest, over loopback), each sending a 64-byte\nrequest, waiting for the 64-byte reply and thinking %s; the server handles each\nconnection on a goroutine, or on a goroutine locked to its own OS thread\n(`runtime.LockOSThread`, so %d threads block in read). Requests/s and latency (ms):\n\n",
		p.clients, p.think, p.clients)
	b.WriteString(nr.table(s, "server", [][2]string{{"gvt/goroutines", "goroutine per conn"}, {"gvt/threads", "thread per conn"}}, netRRFields) + "\n")

	b.WriteString("### HTTP throughput: net/http hello\n\n")
	fmt.Fprintf(b, "%d keep-alive connections, each sending `GET /` and reading the reply before the\nnext: from the host through the published port (slirp, virtio-net), and from\ninside the guest over loopback. Each connection is opened and answers one request\nbefore the clock starts (QEMU's user network accepts published connections\nwith a listen backlog of 1, and the host retries the SYNs it drops 1–7 s later).\nRequests/s and latency (ms):\n\n", p.httpConns)
	b.WriteString(nr.table(s, "load from", [][2]string{{"http-host", "host, via device"}, {"http-lo", "guest, loopback"}}, netRRFields) + "\n")
	if png, err := nr.plot(s); err != nil {
		fmt.Fprintf(b, "(plot failed: %v)\n\n", err)
	} else {
		fmt.Fprintf(b, "![HTTP requests/s vs harts](%s)\n\n", png)
	}

	b.WriteString("### Bulk TCP through the device\n\n")
	fmt.Fprintf(b, "Streams that write 64 KiB at a time for %g s; MB/s (10^6) is what the receiver\ncounted from the first write (the streams are open before it) until its last\nbyte (host → guest: the guest's sink\nreplies with its count; guest → host: the guest connects to 10.0.2.2, the\nhost's loopback on slirp).\n\n", p.secs)
	b.WriteString(nr.table(s, "direction, streams", [][2]string{{"bulk/in/1", "host → guest, 1"}, {"bulk/in/8", "host → guest, 8"}, {"bulk/out/1", "guest → host, 1"}, {"bulk/out/8", "guest → host, 8"}},
		[][2]string{{"mb_per_s", "%.1f"}}) + "\n")
	if s.O.Tap {
		b.WriteString("### Bulk TCP through a tap device\n\n")
		fmt.Fprintf(b, "The same streams, in a boot of its own, with the guest on tap device %s (`-netdev tap,ifname=%s,script=no,downscript=no`, vhost-net when /dev/vhost-net exists) in a network namespace the bench made, the host's end 10.0.2.2/24: no slirp in the path, and a backend that takes virtio-net headers, so QEMU offers both kernels checksum offload, TSO and large receive. The host dials 10.0.2.15 directly; guest → host streams go to 10.0.2.2.\n\n", TapDevice, TapDevice)
		if s.O.TapMQ {
			b.WriteString("The tap is a multiqueue one (`ip tuntap add ... multi_queue`, `-tap-mq`): QEMU opens it with a queue per CPU (`queues=N`, `mq=on`) and both kernels use a virtio-net queue pair per CPU.\n\n")
		}
		b.WriteString(nr.table(s, "direction, streams", [][2]string{{"bulk-tap/in/1", "host → guest, 1"}, {"bulk-tap/in/8", "host → guest, 8"}, {"bulk-tap/out/1", "guest → host, 1"}, {"bulk-tap/out/8", "guest → host, 8"}},
			[][2]string{{"mb_per_s", "%.1f"}}) + "\n")
	}

}

// writeConns writes connection scaling and memory per idle connection.
func (nr *netRun) writeConns(b *strings.Builder, s *Session) {
	p := nr.p
	b.WriteString("### Connection scaling\n\n")
	b.WriteString("N connections to the echo server opened (each proved by one round trip, 16 or\n32 dialing at once) and held; then 32 workers send requests over all of them in\nturn. Requests/s and p99 (ms) with that many open, how many opened, and the\nseconds opening took:\n\n")
	var subs [][2]string
	for _, n := range p.loConns {
		subs = append(subs, [2]string{fmt.Sprintf("conns-lo/%d", n), fmt.Sprintf("loopback, %d", n)})
	}
	for _, n := range p.devConns {
		subs = append(subs, [2]string{fmt.Sprintf("conns-dev/%d", n), fmt.Sprintf("host via device, %d", n)})
	}
	b.WriteString(nr.table(s, "path, N", subs, netConnFields) + "\n")
	b.WriteString("### Memory per idle connection\n\n")
	b.WriteString("The guest's memory in use (MemTotal − MemAvailable of its /proc/meminfo, after\n" +
		"`debug.FreeOSMemory`) 2 s after the previous phase, before the host opened N\n" +
		"connections to the echo server, and again after they sat idle for 2 s; the\n" +
		"difference divided by N, in KiB. The peer is the host through the same QEMU\n" +
		"network; the guest holds one end of each. `go` is the Go program's own share\n" +
		"(the runtime's memory from the kernel, MemStats Sys − HeapReleased: a goroutine\n" +
		"and its stack, the echo buffer and netFD per connection), the same program on\n" +
		"both kernels; `kernel` is the rest (socket, buffers, descriptors), and `slab`\n" +
		"the part of it in kernel objects (meminfo's Slab: Linux's slab caches, gometal's\n" +
		"kernel heap; gometal's connection buffers are page frames outside it):\n\n")
	var memSubs [][2]string
	for _, n := range p.devConns {
		memSubs = append(memSubs, [2]string{fmt.Sprintf("conns-dev/%d", n), fmt.Sprintf("host via device, %d", n)})
	}
	b.WriteString(nr.table(s, "path, N", memSubs, [][2]string{{"mem_kib", "%.1f"}, {"kernel_kib", "%.1f"}, {"slab_kib", "%.1f"}, {"go_kib", "%.1f"}}) + "\n")
}

// writeIssues lists what went wrong, the host phases that ended early and
// gometal's most frequent system calls.
func (nr *netRun) writeIssues(b *strings.Builder, s *Session) {
	if len(nr.problems) > 0 {
		b.WriteString("What went wrong in the figures above (the first error of each):\n\n")
		for _, p := range nr.problems {
			b.WriteString("- " + shorten(p, 300) + "\n")
		}
		b.WriteString("\n")
	}
	if len(nr.notes) > 0 {
		b.WriteString("Host phases that ended early:\n\n")
		for _, n := range nr.notes {
			b.WriteString("- " + n + "\n")
		}
		b.WriteString("\n")
	}
	if len(nr.top) > 0 {
		b.WriteString("gometal's most frequent system calls (`-kernel-args stats`, whole boot):\n\n")
		for _, c := range s.O.Cores {
			if t, ok := nr.top[c]; ok {
				fmt.Fprintf(b, "- %d harts: %s\n", c, t)
			}
		}
	}
}

// summary is the net group's lines for the report's summary (with Linux).
func (nr *netRun) summary(s *Session) []string {
	p := nr.p
	var notes []string
	var parts []string
	for _, c := range s.O.Cores {
		parts = append(parts, fmt.Sprintf("%d harts %s (host) / %s (loopback)", c, nr.ratio(c, "http-host/per_s"), nr.ratio(c, "http-lo/per_s")))
	}
	notes = append(notes, "HTTP requests/s, gometal/Linux: "+strings.Join(parts, ", ")+".")
	var mem []string
	for _, c := range s.O.Cores {
		for _, n := range p.devConns {
			mem = append(mem, fmt.Sprintf("%d harts, %d: %s", c, n, nr.ratio(c, fmt.Sprintf("conns-dev/%d/mem_kib", n))))
		}
	}
	notes = append(notes, "Memory per idle connection, gometal/Linux (lower is better): "+strings.Join(mem, ", ")+".")
	n := s.MaxCores()
	notes = append(notes, fmt.Sprintf("I/O server at %d harts (seed 002), thread per connection vs goroutine per connection, requests/s: gometal %s, Linux %s.",
		n, nr.sm.ratio(fmt.Sprintf("gometal/c%d/gvt/threads/per_s", n), fmt.Sprintf("gometal/c%d/gvt/goroutines/per_s", n)),
		nr.sm.ratio(fmt.Sprintf("linux/c%d/gvt/threads/per_s", n), fmt.Sprintf("linux/c%d/gvt/goroutines/per_s", n))))
	return notes
}

// plot draws HTTP requests/s against harts for each kernel and load.
func (nr *netRun) plot(s *Session) (string, error) {
	ch := &plot.Chart{Title: fmt.Sprintf("net/http hello: requests/s vs harts, median of %d", s.O.Runs), XLabel: "harts (-smp)", YLabel: "requests/s"}
	for _, c := range s.O.Cores {
		ch.XTicks = append(ch.XTicks, float64(c))
	}
	for ki, k := range nr.kinds {
		for _, load := range []string{"http-host", "http-lo"} {
			ser := plot.Series{Name: fmt.Sprintf("%s, %s", k, map[string]string{"http-host": "host via device", "http-lo": "loopback"}[load]),
				Color: plot.Palette[ki], Dashed: load == "http-lo"}
			for _, c := range s.O.Cores {
				if m, ok := nr.sm.med(fmt.Sprintf("%s/c%d/%s/per_s", k, c, load)); ok {
					ser.X = append(ser.X, float64(c))
					ser.Y = append(ser.Y, m)
				}
			}
			ch.Series = append(ch.Series, ser)
		}
	}
	png := "bench-net-http.png"
	return png, ch.Save(filepath.Join(s.OutDir, png))
}
