// Command devices measures a Go driver of QEMU's edu PCI device through
// UIO, the same binary on gometal and on Linux (as /init it loads uio and
// uio_pci_generic itself: internal/uioinit). One BENCH line per figure:
//
//	irq        interrupt response: edu raises, the goroutine blocked in
//	           uio.Wait runs; µs p50/p99/max over -n samples, with the
//	           machine idle ("idle") and with goroutines allocating hard on
//	           every hart so the GC runs throughout ("gc"); each sample
//	           also acknowledges and re-enables (irqcontrol on gometal,
//	           device/config on Linux, whose uio_pci_generic has no
//	           irqcontrol)
//	events     interrupt round trips per second (the same loop, timed as a
//	           whole): event throughput, measured at each hart count
//	regwrite   32-bit MMIO register writes per second (edu's liveness
//	           register), and reads per second
//
//	devices [-n 10000] [-regs 200000]
package main

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
	"gometal.dev/gometal/internal/uioinit"
	"gometal.dev/gometal/uio"
	"gometal.dev/gometal/uio/edu"
)

func main() {
	n := flag.Int("n", 10000, "interrupt samples per load")
	regs := flag.Int("regs", 200000, "register accesses")
	flag.Parse()
	if uioinit.Needed() {
		if _, err := uioinit.Linux("1234 11e8"); err != nil {
			guest.Fail("devices", err)
		}
	}
	dev, err := uio.Open(edu.Spec)
	if err != nil {
		guest.Fail("devices", err)
	}
	r, err := dev.Map(0)
	if err != nil {
		guest.Fail("devices", err)
	}
	if err := dev.EnableInterrupts(); err != nil {
		guest.Fail("devices", err)
	}
	for _, load := range []string{"idle", "gc"} {
		stop := make(chan struct{})
		if load == "gc" {
			for range runtime.GOMAXPROCS(0) {
				go allocate(stop)
			}
		}
		lat, total := interrupts(dev, r, *n)
		close(stop)
		slices.Sort(lat)
		guest.Report("devices", "what", "irq", "load", load, "n", len(lat), "cpus", runtime.NumCPU(),
			"p50_us", us(lat[len(lat)/2]), "p99_us", us(lat[len(lat)*99/100]), "max_us", us(lat[len(lat)-1]))
		guest.Report("devices", "what", "events", "load", load, "cpus", runtime.NumCPU(),
			"per_s", float64(len(lat))/total.Seconds())
	}
	start := time.Now()
	for i := range *regs {
		r.Write32(edu.RegLiveness, uint32(i))
	}
	w := time.Since(start)
	start = time.Now()
	var sink uint32
	for range *regs {
		sink += r.Read32(edu.RegLiveness)
	}
	rd := time.Since(start)
	guest.Report("devices", "what", "regwrite", "cpus", runtime.NumCPU(), "writes_per_s", float64(*regs)/w.Seconds(),
		"reads_per_s", float64(*regs)/rd.Seconds(), "sink", sink&1)
	guest.PowerOff()
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// interrupts raises n interrupts one at a time; each sample is raise to
// the waiting goroutine running.
func interrupts(dev *uio.Device, r *uio.Region, n int) ([]time.Duration, time.Duration) {
	lat := make([]time.Duration, 0, n)
	begin := time.Now()
	for range n {
		start := time.Now()
		r.Write32(edu.RegIRQRaise, 1)
		if _, err := dev.Wait(); err != nil {
			guest.Fail("devices", err)
		}
		lat = append(lat, time.Since(start))
		r.Write32(edu.RegIRQAck, 1)
		if err := dev.EnableInterrupts(); err != nil {
			guest.Fail("devices", fmt.Errorf("re-enable: %w", err))
		}
	}
	return lat, time.Since(begin)
}

// allocate makes garbage until stop: short-lived maps and slices, and a
// ring of live ones, so the collector runs all the time.
func allocate(stop <-chan struct{}) {
	ring := make([][]byte, 512)
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		m := make(map[int][]byte, 8)
		for k := range 8 {
			m[k] = make([]byte, 128)
		}
		ring[i%len(ring)] = m[i%8]
	}
}
