// Command robot is GERT's event loop on gometal: one goroutine per sensor
// feeding a channel, a select loop that reacts to whichever fires, and a
// goroutine that allocates heavily so the garbage collector runs the whole
// time. The sensors:
//
//   - laser: scans replayed from a gob file in the initramfs, every 10 ms;
//   - bumper: interrupts of QEMU's edu device (a factorial finishing),
//     through UIO;
//   - clock: alarms of the Goldfish RTC every 20 ms, through UIO.
//
// It runs for -for (default 2 s) and reports each sensor's event count and
// the latency from an event's arrival to its handling in the loop
// (p50/p99/max), with the number of GC cycles that ran meanwhile.
//
//	gometal run -device edu -device rtc-alarm \
//	    -add examples/robot/testdata/laser.gob:/data/laser.gob ./examples/robot
package main

import (
	"encoding/gob"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"runtime"
	"slices"
	"time"

	"gometal.dev/gometal/examples/robot/laser"
	"gometal.dev/gometal/uio"
	"gometal.dev/gometal/uio/edu"
)

// event is one sensor reading, stamped when the sensor goroutine got it.
type event struct {
	at   time.Time
	scan *laser.Scan
}

func main() {
	dur := flag.Duration("for", 2*time.Second, "how long to run")
	data := flag.String("laser", "/data/laser.gob", "recorded laser scans (gob)")
	flag.Parse()

	scans, err := loadScans(*data)
	if err != nil {
		log.Fatal(err)
	}
	laserC, bumperC, clockC := make(chan event, 16), make(chan event, 16), make(chan event, 16)
	go laserSensor(scans, laserC)
	go bumperSensor(bumperC)
	go clockSensor(clockC)
	stop := make(chan struct{})
	go allocator(stop)

	lat := map[string][]time.Duration{}
	gc0 := numGC()
	nearest := math.Inf(1)
	deadline := time.After(*dur)
loop:
	for {
		select {
		case e := <-laserC:
			lat["laser"] = append(lat["laser"], time.Since(e.at))
			nearest = steer(e.scan)
		case e := <-bumperC:
			lat["bumper"] = append(lat["bumper"], time.Since(e.at))
		case e := <-clockC:
			lat["clock"] = append(lat["clock"], time.Since(e.at))
		case <-deadline:
			break loop
		}
	}
	close(stop)
	fmt.Printf("robot: %v, GOMAXPROCS=%d, %d GC cycles meanwhile, nearest obstacle %.2f m\n",
		*dur, runtime.GOMAXPROCS(0), numGC()-gc0, nearest)
	for _, name := range []string{"laser", "bumper", "clock"} {
		l := lat[name]
		if len(l) == 0 {
			log.Fatalf("robot: no %s events", name)
		}
		slices.Sort(l)
		fmt.Printf("robot: %-6s %5d events, handling latency p50 %v p99 %v max %v\n",
			name, len(l), l[len(l)/2], l[len(l)*99/100], l[len(l)-1])
	}
}

func loadScans(path string) ([]laser.Scan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("robot: %w (pack it with -add examples/robot/testdata/laser.gob:%s)", err, path)
	}
	defer f.Close()
	dec := gob.NewDecoder(f)
	var scans []laser.Scan
	for {
		var s laser.Scan
		if err := dec.Decode(&s); err == io.EOF {
			return scans, nil
		} else if err != nil {
			return nil, fmt.Errorf("robot: %s: %w", path, err)
		}
		scans = append(scans, s)
	}
}

// steer is the robot's reaction to a scan: the nearest obstacle ahead.
func steer(s *laser.Scan) float64 {
	nearest := math.Inf(1)
	for _, p := range s.Points {
		if math.Abs(p.Angle) < math.Pi/6 {
			nearest = math.Min(nearest, p.Dist)
		}
	}
	return nearest
}

func laserSensor(scans []laser.Scan, out chan<- event) {
	t := time.NewTicker(10 * time.Millisecond)
	for i := 0; ; i++ {
		<-t.C
		out <- event{at: time.Now(), scan: &scans[i%len(scans)]}
	}
}

// bumperSensor: the edu device computes a factorial and interrupts when
// done; each interrupt is a "bump".
func bumperSensor(out chan<- event) {
	e, err := edu.Open()
	if err != nil {
		log.Fatalf("robot: %v (run with -device edu)", err)
	}
	dev, regs := e.Dev, e.Regs
	regs.Write32(edu.RegStatus, edu.StatusIRQOnFact)
	if err := dev.EnableInterrupts(); err != nil {
		log.Fatal(err)
	}
	for {
		regs.Write32(edu.RegFactorial, 8)
		if _, err := dev.Wait(); err != nil {
			log.Fatal(err)
		}
		at := time.Now()
		e.Ack(regs.Read32(edu.RegIRQStatus))
		if err := dev.EnableInterrupts(); err != nil {
			log.Fatal(err)
		}
		out <- event{at: at}
		time.Sleep(5 * time.Millisecond)
	}
}

// clockSensor: the RTC's alarm, every 20 ms.
func clockSensor(out chan<- event) {
	dev, err := uio.Open("rtc")
	if err != nil {
		log.Fatalf("robot: %v (run with -device rtc-alarm)", err)
	}
	regs, err := dev.Map(0)
	if err != nil {
		log.Fatal(err)
	}
	const timeLow, timeHigh, alarmLow, alarmHigh, irqEnabled, clearIRQ = 0x00, 0x04, 0x08, 0x0c, 0x10, 0x1c
	regs.Write32(irqEnabled, 1)
	for {
		now := uint64(regs.Read32(timeLow))
		now |= uint64(regs.Read32(timeHigh)) << 32
		at := now + uint64(20*time.Millisecond)
		regs.Write32(alarmHigh, uint32(at>>32))
		regs.Write32(alarmLow, uint32(at))
		if _, err := dev.Wait(); err != nil {
			log.Fatal(err)
		}
		got := time.Now()
		regs.Write32(clearIRQ, 1)
		if err := dev.EnableInterrupts(); err != nil {
			log.Fatal(err)
		}
		out <- event{at: got}
	}
}

// allocator keeps the garbage collector busy: maps and slices, a ring of
// them kept alive, the rest garbage at once.
func allocator(stop <-chan struct{}) {
	ring := make([]map[int][]byte, 256)
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		m := make(map[int][]byte, 16)
		for k := range 16 {
			m[k] = make([]byte, 64+k*8)
		}
		ring[i%len(ring)] = m
		if i%1024 == 0 {
			runtime.Gosched()
		}
	}
}

func numGC() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}
