// Command alarm drives the virt machine's Goldfish real-time clock through
// UIO: it reads the time, sets the RTC's alarm a little ahead, and waits
// for the alarm interrupt on a channel, several times, reporting how late
// the goroutine woke. Run it with
//
//	gometal run -device rtc-alarm ./examples/alarm
//
// (a platform device: Linux's Debian kernel has no uio_pdrv_genirq, so this
// one is gometal-only.)
package main

import (
	"fmt"
	"log"
	"time"

	"gometal.dev/gometal/uio"
)

// Goldfish RTC registers (QEMU hw/rtc/goldfish_rtc.c): times in ns since
// the Unix epoch; reading TIME_LOW latches TIME_HIGH; writing ALARM_LOW
// arms the alarm.
const (
	timeLow        = 0x00
	timeHigh       = 0x04
	alarmLow       = 0x08
	alarmHigh      = 0x0c
	irqEnabled     = 0x10
	clearInterrupt = 0x1c
)

func now(r *uio.Region) uint64 {
	lo := uint64(r.Read32(timeLow))
	return uint64(r.Read32(timeHigh))<<32 | lo
}

func main() {
	dev, err := uio.Open("rtc")
	if err != nil {
		log.Fatalf("alarm: %v (run with: gometal run -device rtc-alarm)", err)
	}
	regs, err := dev.Map(0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("rtc at %#x (/dev/uio%d): %s\n", regs.Phys, dev.Index, time.Unix(0, int64(now(regs))).UTC().Format(time.RFC3339Nano))
	regs.Write32(irqEnabled, 1)
	counts, errc := dev.Interrupts()
	const rounds = 5
	for i := range rounds {
		at := now(regs) + uint64(50*time.Millisecond)
		regs.Write32(alarmHigh, uint32(at>>32))
		regs.Write32(alarmLow, uint32(at))
		select {
		case n := <-counts:
			late := time.Duration(now(regs) - at)
			regs.Write32(clearInterrupt, 1)
			if err := dev.EnableInterrupts(); err != nil {
				log.Fatal(err)
			}
			fmt.Printf("alarm %d: interrupt %d, woke %v after the alarm time\n", i+1, n, late.Round(time.Microsecond))
		case err := <-errc:
			log.Fatal(err)
		case <-time.After(5 * time.Second):
			log.Fatalf("alarm %d: no interrupt within 5s", i+1)
		}
	}
	regs.Write32(irqEnabled, 0)
	fmt.Printf("alarm: %d alarms delivered\n", rounds)
}
