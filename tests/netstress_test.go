package tests

// Issue 24's "done when" checks, on a tap (nettap_test.go's namespace):
// tests/progs/netbulk at 1 and 4 CPUs moves GOMETAL_TEST_BULK_MIB (200)
// MiB each way at once, every byte checked against a pattern
// (tests/internal/bytepattern) on the receiving end; then bad peers, each
// costing the program that connection only (an echo connection opened
// first must answer after each, and new connections must be served): a
// peer that resets in the middle of a transfer each way, one that vanishes
// (its address is removed from the namespace: nothing answers, nothing
// resets), one that holds a zero window for 3 s (the program's writes miss
// their deadline and are tried again, and the transfer completes once the
// peer reads), and a flood of SYNs from addresses that never answer
// (netsynflood_test.go). TestNetTapManyConns is in netmanyconns_test.go.

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gometal.dev/gometal/tests/internal/bytepattern"
)

// bulkMiB is the size of each way's transfer (GOMETAL_TEST_BULK_MIB,
// default 200: 256 took 30 s a boot at load 5-12 on the 2-core host).
func bulkMiB() int {
	if n, err := strconv.Atoi(os.Getenv("GOMETAL_TEST_BULK_MIB")); err == nil && n > 0 {
		return n
	}
	return 200
}

// checkPattern reads bytes from..n of pattern seed from r.
func checkPattern(r io.Reader, from, n, seed uint64) error {
	at, err := bytepattern.Check(r, from, n, seed)
	switch {
	case err != nil:
		return fmt.Errorf("%w (of %d)", err, n)
	case at < n:
		return fmt.Errorf("byte %d of %d is wrong", at, n)
	}
	return nil
}

// waitOutput waits up to `within` for the output to match re.
func waitOutput(s *netServer, re string, within time.Duration) bool {
	rx := regexp.MustCompile(re)
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if rx.MatchString(s.output()) {
			return true
		}
	}
	return false
}

// stressRun is one boot of netbulk under TestNetTapStress: its namespace,
// the program, and the echo connection that the bad peers must not
// disturb.
type stressRun struct {
	ns   tapNS
	s    *netServer
	ctl  net.Conn
	ctlR *bufio.Reader
}

const stressAddr = "10.77.0.2:7"

// fresh has a new connection echo a line.
func (r *stressRun) fresh(line string) error {
	c, err := r.ns.dial(stressAddr)
	if err != nil {
		return fmt.Errorf("a new connection: %v", err)
	}
	if back, err := echoConn(c, []byte("echo\n"+line)); err != nil || string(back) != line {
		return fmt.Errorf("a new connection: %q %v", back, err)
	}
	return nil
}

// still checks that the echo connection and a new one still echo.
func (r *stressRun) still(t *testing.T, tag string) {
	t.Helper()
	line := "still there " + tag + "\n"
	if _, err := r.ctl.Write([]byte(line)); err != nil {
		t.Fatalf("%s: the echo connection: %v\n%s", tag, err, tail(r.s.output(), 30))
	}
	if got, err := r.ctlR.ReadString('\n'); err != nil || got != line {
		t.Fatalf("%s: the echo connection: %q %v\n%s", tag, got, err, tail(r.s.output(), 30))
	}
	if err := r.fresh(line); err != nil {
		t.Fatalf("%s: %v\n%s", tag, err, tail(r.s.output(), 30))
	}
}

// cmd opens a connection and sends a command line.
func (r *stressRun) cmd(t *testing.T, line string) net.Conn {
	t.Helper()
	c, err := r.ns.dial(stressAddr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(120 * time.Second))
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNetTapStress(t *testing.T) { parallelArches(t, testNetTapStress) }

func testNetTapStress(t *testing.T, a *arch) {
	t.Parallel()
	for _, cores := range []int{1, 4} {
		t.Run(fmt.Sprintf("smp%d", cores), func(t *testing.T) {
			t.Parallel()
			ns := newTapNS(t)
			ns.ip(t, "addr", "add", "10.77.0.3/24", "dev", "gmtap0") // the peer that will vanish
			s := ns.boot(t, "ip=10.77.0.2/24,gw=10.77.0.1", []string{"-cores", strconv.Itoa(cores), "-kernel-args", "stats"}, "netbulk: listening", a.prog("netbulk"))
			begin := time.Now()
			ctl, err := ns.dial(stressAddr)
			if err != nil {
				t.Fatal(err)
			}
			defer ctl.Close()
			ctl.SetDeadline(time.Now().Add(200 * time.Second))
			if _, err := ctl.Write([]byte("echo\n")); err != nil {
				t.Fatal(err)
			}
			r := &stressRun{ns: ns, s: s, ctl: ctl, ctlR: bufio.NewReader(ctl)}
			r.still(t, "at the start")
			t.Run("bulk", r.bulk)
			t.Run("reset", r.reset)
			t.Run("vanish", r.vanish)
			t.Run("zerowindow", r.zeroWindow)
			t.Run("synflood", r.synFlood)

			c := r.cmd(t, "quit")
			if err := s.wait(30 * time.Second); err != nil {
				t.Errorf("after quit: %v", err)
			}
			c.Close()
			if strings.Contains(s.output(), "panic") {
				t.Errorf("the output has a panic:\n%s", tail(s.output(), 40))
			}
			if m := regexp.MustCompile(`half-open dropped for new SYNs \d+`).FindString(s.output()); m != "" {
				t.Logf("kernel statistics: %s", m)
			}
			t.Logf("all in %v", time.Since(begin).Round(time.Millisecond))
		})
	}
}

// bulk: bulkMiB each way at once, every byte checked.
func (r *stressRun) bulk(t *testing.T) {
	n := uint64(bulkMiB()) << 20
	start := time.Now()
	var wg sync.WaitGroup
	var putErr, getErr error
	var putTime, getTime time.Duration
	put, get := r.cmd(t, fmt.Sprintf("put %d 1", n)), r.cmd(t, fmt.Sprintf("get %d 2", n))
	wg.Add(2)
	go func() { // host → guest, checked in the guest
		defer wg.Done()
		c := put
		defer c.Close()
		if putErr = bytepattern.Write(c, n, 1); putErr == nil {
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil || line != fmt.Sprintf("ok %d\n", n) {
				putErr = fmt.Errorf("the guest says %q (%v)", line, err)
			}
		}
		putTime = time.Since(start)
	}()
	go func() { // guest → host, checked here
		defer wg.Done()
		c := get
		defer c.Close()
		if getErr = checkPattern(c, 0, n, 2); getErr == nil {
			if k, err := c.Read(make([]byte, 1)); k != 0 || err != io.EOF {
				getErr = fmt.Errorf("after the transfer: %d bytes, %v; want end of file", k, err)
			}
		}
		getTime = time.Since(start)
	}()
	wg.Wait()
	if putErr != nil || getErr != nil {
		t.Fatalf("host → guest: %v; guest → host: %v\n%s", putErr, getErr, tail(r.s.output(), 30))
	}
	mb := float64(n) / 1e6
	t.Logf("%d MiB each way at once: host → guest %.1f MB/s (%v), guest → host %.1f MB/s (%v)",
		n>>20, mb/putTime.Seconds(), putTime.Round(time.Millisecond), mb/getTime.Seconds(), getTime.Round(time.Millisecond))
	r.still(t, "after the transfers")
}

// reset: the peer resets while the program writes, then while it reads.
func (r *stressRun) reset(t *testing.T) {
	c := r.cmd(t, "get 1073741824 11")
	if err := checkPattern(c, 0, 1<<20, 11); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).SetLinger(0)
	c.Close()
	c = r.cmd(t, "put 1073741824 12")
	if err := bytepattern.Write(c, 1<<20, 12); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).SetLinger(0)
	c.Close()
	for _, re := range []string{`netbulk: get 11: write at \d+: .*(reset|broken pipe)`, `netbulk: put 12: read at \d+: .*reset`} {
		if !waitOutput(r.s, re, 20*time.Second) {
			t.Errorf("no line like %q", re)
		}
	}
	r.still(t, "after the resets")
	if t.Failed() {
		t.Logf("output:\n%s", tail(r.s.output(), 30))
	}
}

// vanish: the peer's address disappears: nothing answers or resets. The
// program's writes, with a 500 ms deadline, give up after three misses in
// a row.
func (r *stressRun) vanish(t *testing.T) {
	c, err := r.ns.dialFrom("10.77.0.3", stressAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	c.Write([]byte("get 1073741824 13 500 2\n"))
	if err := checkPattern(c, 0, 1<<20, 13); err != nil {
		t.Fatal(err)
	}
	r.ns.ip(t, "addr", "del", "10.77.0.3/24", "dev", "gmtap0")
	if !waitOutput(r.s, `netbulk: get 13: write at \d+: .*i/o timeout`, 30*time.Second) {
		t.Errorf("the program did not give up on the vanished peer:\n%s", tail(r.s.output(), 30))
	}
	r.still(t, "after the vanished peer")
}

// zeroWindow: the peer stops reading for 3 s: the program's writes miss
// their 300 ms deadlines (and go on), others are served, and the transfer
// completes once the peer reads again.
func (r *stressRun) zeroWindow(t *testing.T) {
	const n = 64 << 20
	c := r.cmd(t, fmt.Sprintf("get %d 14 300 1000", n))
	defer c.Close()
	br := bufio.NewReaderSize(c, 1<<20)
	if err := checkPattern(br, 0, 1<<20, 14); err != nil {
		t.Fatal(err)
	}
	stall := time.Now()
	r.still(t, "beside the zero window")
	if !waitOutput(r.s, `netbulk: get 14: write deadline at \d+, again`, 10*time.Second) {
		t.Fatalf("no write missed its deadline while the peer did not read:\n%s", tail(r.s.output(), 30))
	}
	time.Sleep(3*time.Second - time.Since(stall))
	r.still(t, "during the zero window")
	// The rest, checked from 1 MiB on.
	if err := checkPattern(io.MultiReader(br, c), 1<<20, n, 14); err != nil {
		t.Fatalf("after the zero window: %v\n%s", err, tail(r.s.output(), 30))
	}
	if !waitOutput(r.s, `netbulk: get 14: sent`, 20*time.Second) {
		t.Errorf("the program did not finish the transfer:\n%s", tail(r.s.output(), 30))
	}
	r.still(t, "after the zero window")
}
