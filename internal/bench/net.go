package bench

// The network benchmark (issue 11): bench/net on both kernels with the
// same virtio-net device (virtio-mmio, QEMU's user network), loopback
// figures measured by the guest, figures through the device measured by
// the host's load generator (net_host.go); the report is net_report.go.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gometal.dev/gometal/internal/initramfs"
	"gometal.dev/gometal/internal/linuxkernel"
	"gometal.dev/gometal/internal/qemu"
)

func init() {
	register(&benchmark{name: "net", title: "Network: goroutines vs threads for I/O, HTTP, bulk TCP, connection scaling",
		plan: func(s *Session) int { return s.O.Runs * len(s.O.Cores) * len(s.Kinds) }, run: runNet})
}

// netParams are one run's sizes.
type netParams struct {
	secs               float64
	clients, httpConns int
	think              time.Duration
	loConns, devConns  []int
}

// netParamsFor gives the sizes for -quick or not; conns, if any, replaces
// the connection counts (bench -conns).
func netParamsFor(quick bool, conns []int) netParams {
	p := netParams{secs: 3, clients: 200, httpConns: 16, think: 10 * time.Millisecond, loConns: []int{1000, 10000}, devConns: []int{1000, 10000}}
	if quick {
		p = netParams{secs: 1, clients: 50, httpConns: 16, think: 10 * time.Millisecond, loConns: []int{1000}, devConns: []int{1000}}
	}
	if len(conns) > 0 {
		p.loConns, p.devConns = conns, conns
	}
	return p
}

func (p netParams) args() []string {
	return []string{"-secs", strconv.FormatFloat(p.secs, 'g', -1, 64), "-clients", fmt.Sprint(p.clients),
		"-think", p.think.String(), "-http-conns", fmt.Sprint(p.httpConns), "-conns", intList(p.loConns), "-serve"}
}

func intList(v []int) string {
	var s []string
	for _, x := range v {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ",")
}

// netMinMem is the least memory the net boots get (both kernels): 10,000
// connections over loopback are 20,000 sockets, and gometal's pipes and
// the programs' goroutines need more than the default 256M.
const netMinMem = "1G"

func netMem(s *Session) string {
	have, err1 := qemu.ParseSize(s.O.Mem)
	least, err2 := qemu.ParseSize(netMinMem)
	if err1 == nil && err2 == nil && have >= least {
		return s.O.Mem
	}
	return netMinMem
}

// netLinuxModules packs Linux's virtio-mmio transport and virtio-net
// driver under /modules, named so that bench/net loads them in order.
func netLinuxModules(s *Session) ([]initramfs.Mapping, []string, error) {
	if s.LinuxK.VirtioMMIO == "" {
		return nil, nil, fmt.Errorf("no virtio_mmio module in the Linux cache")
	}
	mods, err := linuxkernel.Modules(s.O.LinuxDir, s.LinuxK, linuxkernel.VirtioNetModules, s.O.Log)
	if err != nil {
		return nil, nil, err
	}
	mods = append([]string{s.LinuxK.VirtioMMIO}, mods...)
	var extras []initramfs.Mapping
	for i, m := range mods {
		extras = append(extras, initramfs.Mapping{Host: m, Guest: fmt.Sprintf("/modules/%d-%s", i+1, filepath.Base(m))})
	}
	return extras, baseNames(mods), nil
}

// netRun is what the boots collected.
type netRun struct {
	sm       *samples
	p        netParams
	kinds    []Kind
	mods     []string
	modErr   error
	notes    []string // host phases that ended early
	problems []string // figures that met errors (connections refused, reset ...)
	top      map[int]string
	failing  map[string]string // "kind/cN" → why the boot failed
}

func runNet(s *Session) Section {
	raiseNoFile() // 10,000 connections through the device, here and in QEMU
	nr := &netRun{sm: newSamples(), p: netParamsFor(s.O.Quick, s.O.Conns), kinds: []Kind{Gometal}, top: map[int]string{}, failing: map[string]string{}}
	var extras []initramfs.Mapping
	if len(s.Kinds) > 1 && s.LinuxK != nil {
		if extras, nr.mods, nr.modErr = netLinuxModules(s); nr.modErr == nil {
			nr.kinds = s.Kinds
		}
	}
	prog, err := s.M.BuildGoWith("net", "./bench/net", extras)
	if err != nil {
		return notMeasured("building bench/net failed", err)
	}
	dur := time.Duration(nr.p.secs * float64(time.Second))
	for r := 1; r <= s.O.Runs; r++ {
		for _, c := range s.O.Cores {
			for _, k := range nr.kinds {
				nr.boot(s, prog, k, c, dur, false, fmt.Sprintf("cores=%d run %d/%d", c, r, s.O.Runs))
				if s.O.Tap {
					nr.boot(s, prog, k, c, dur, true, fmt.Sprintf("cores=%d run %d/%d, tap", c, r, s.O.Runs))
				}
			}
		}
	}
	return nr.section(s)
}

// boot runs one boot of bench/net with the host's load beside it; tap:
// on the tap device, where only bulk TCP is measured (the guest's own
// loopback figures of that boot are dropped: the other boot has them).
func (nr *netRun) boot(s *Session, prog *Prog, k Kind, c int, dur time.Duration, tap bool, what string) {
	h, n, err := newNetHost(dur, nr.p.devConns, nr.p.httpConns)
	if tap {
		h, n = newTapHost(dur)
	}
	if err != nil {
		nr.sm.failed(fmt.Sprintf("%s/c%d", k, c), err.Error())
		return
	}
	stop := make(chan os.Signal, 1)
	spec := Spec{Kind: k, Cores: c, Mem: netMem(s), Prog: prog, Args: nr.p.args(), Timeout: bootTimeout(s), Net: n, Stop: stop}
	if k == Linux {
		spec.Args = append([]string{"-linux"}, spec.Args...)
	} else {
		spec.KernelArgs = "stats"
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.run(ctx, stop); close(done) }()
	b := s.Boot(spec, what)
	cancel()
	<-done
	if h.note != "" {
		nr.notes = append(nr.notes, fmt.Sprintf("%s, %d harts%s: %s", k, c, map[bool]string{true: ", tap"}[tap], h.note))
	}
	if !b.OK() {
		nr.failing[fmt.Sprintf("%s/c%d%s", k, c, map[bool]string{true: "/tap"}[tap])] = b.Why()
	}
	results := append(b.Results, h.results...)
	if tap {
		results = h.results
	} else if b.Top != "" {
		nr.top[c] = b.Top
	}
	for _, res := range results {
		prefix := fmt.Sprintf("%s/c%d/%s/", k, c, netKey(res))
		if p := Str(res, "problem"); p != "" {
			nr.problems = append(nr.problems, fmt.Sprintf("%s, %d harts, %s: %s", k, c, netKey(res), p))
			nr.sm.failed(prefix+"per_s", p)
			nr.sm.failed(prefix+"mb_per_s", p)
		}
		for key, v := range res {
			if x, ok := v.(float64); ok {
				nr.sm.add(prefix+key, x)
			}
		}
	}
}

// netKey names a result: what, then its mode, size or direction.
func netKey(res map[string]any) string {
	w := Str(res, "what")
	switch w {
	case "gvt":
		return w + "/" + Str(res, "mode")
	case "conns-lo", "conns-dev":
		n, _ := Num(res, "n")
		return fmt.Sprintf("%s/%.0f", w, n)
	case "bulk", "bulk-tap":
		st, _ := Num(res, "streams")
		return fmt.Sprintf("%s/%s/%.0f", w, Str(res, "dir"), st)
	}
	return w
}
