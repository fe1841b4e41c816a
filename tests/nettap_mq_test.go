package tests

// virtio-net multiqueue on a multiqueue tap (`ip tuntap add ...
// multi_queue`): gometal opens it with a queue per CPU (`queues=4`,
// `mq=on`), the kernel turns the four pairs on (a boot line says so), and
// eight streams echoed at once, each checked byte for byte, must come
// through; the host's tap spreads flows over its queues by their hash, and
// the kernel sends a connection's frames on one pair picked by its hash
// (8 connections all on one of 4 pairs: 1 in 16,000), so the stats
// report's per-pair counts must show more than one pair used each way.

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNetTapMultiqueue(t *testing.T) { parallelArches(t, testNetTapMultiqueue) }

func testNetTapMultiqueue(t *testing.T, a *arch) {
	ns := newTapNS(t, "multi_queue")
	srv := ns.boot(t, "ip=10.77.0.2/24,gw=10.77.0.1", []string{"-cores", "4", "-kernel-args", "stats"}, "tcpecho: listening", a.prog("tcpecho"), "quit")
	output := srv.output
	if !strings.Contains(output(), "gometal: net: 4 queue pairs (multiqueue), one per CPU") {
		t.Fatalf("no boot line for four queue pairs:\n%s", output())
	}
	const streams = 8
	data := randomBytes(2 << 20)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, streams)
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := ns.dial("10.77.0.2:7")
			if err != nil {
				errs <- fmt.Errorf("stream %d: %v", i, err)
				return
			}
			back, err := echoConn(c, data)
			if err != nil || !bytes.Equal(back, data) {
				errs <- fmt.Errorf("stream %d: %d of %d bytes back equal=%v: %v", i, len(back), len(data), bytes.Equal(back, data), err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("%v\n%s", err, output())
	}
	t.Logf("%d streams of %d MiB each way in %v", streams, len(data)>>20, time.Since(start).Round(time.Millisecond))

	c, err := ns.dial("10.77.0.2:7")
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("quit"))
	if err := srv.wait(30 * time.Second); err != nil {
		t.Fatalf("gometal after quit: %v\n%s", err, output())
	}
	c.Close()
	m := regexp.MustCompile(`queue pairs (\d+): packets in ([\d ]+); frames out ([\d ]+)`).FindStringSubmatch(output())
	if m == nil || m[1] != "4" {
		t.Fatalf("no per-pair statistics for 4 pairs:\n%s", output())
	}
	used := func(list string) int {
		n := 0
		for _, f := range strings.Fields(list) {
			if f != "0" {
				n++
			}
		}
		return n
	}
	if used(m[2]) < 2 || used(m[3]) < 2 {
		t.Errorf("packets in per pair %q, frames out per pair %q: want more than one pair used each way", m[2], m[3])
	}
	t.Logf("per pair: packets in %s; frames out %s", m[2], m[3])
}
