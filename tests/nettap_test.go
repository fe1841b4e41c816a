package tests

// The network device on a tap (-net=tap=IFNAME,ip=...,gw=...): the test
// makes its own network namespace with a tap device in it (root, `ip`,
// /dev/net/tun; skipped without them), boots the echo server on that tap
// with an address plan of its own, and talks to it from inside the
// namespace only. A tap backend takes virtio-net headers, so QEMU offers
// the guest checksum offload, TSO and large receive: a large transfer
// checked by SHA-256 each way goes through all of them (the kernel's
// statistics must show segments sent for the device to cut and packets
// larger than the MTU received). Then bad peers: one that resets the
// connection in the middle of a transfer, and one that holds a zero window
// (sends, never reads) — the server must go on serving others meanwhile
// and after.

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tapNS is a network namespace holding tap device "gmtap0" at 10.77.0.1/24.
type tapNS struct{ name string }

// newTapNS makes a namespace whose tap takes virtio-net headers; `opts`
// are more `ip tuntap add` flags (multi_queue).

// tapCount numbers the namespaces this process makes.
var tapCount atomic.Int32

func newTapNS(t *testing.T, opts ...string) tapNS {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a network namespace and a tap device")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		t.Skip("no /dev/net/tun")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip(8)")
	}
	ns := tapNS{name: fmt.Sprintf("gmtap%d-%d", os.Getpid(), tapCount.Add(1))}
	run := func(args ...string) {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("netns", "add", ns.name)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns.name).Run() })
	run("-n", ns.name, "link", "set", "lo", "up")
	run(append([]string{"-n", ns.name, "tuntap", "add", "dev", "gmtap0", "mode", "tap", "vnet_hdr"}, opts...)...)
	run("-n", ns.name, "addr", "add", "10.77.0.1/24", "dev", "gmtap0")
	run("-n", ns.name, "link", "set", "gmtap0", "up")
	return ns
}

// inNS runs f on a thread that entered the namespace (the thread is
// never used again).
func (ns tapNS) inNS(f func() error) error {
	ch := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // not unlocked: the thread ends with the goroutine
		fd, err := os.Open("/var/run/netns/" + ns.name)
		if err != nil {
			ch <- err
			return
		}
		defer fd.Close()
		if err := unix.Setns(int(fd.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- err
			return
		}
		ch <- f()
	}()
	return <-ch
}

// dial connects to addr from inside the namespace.
func (ns tapNS) dial(addr string) (net.Conn, error) { return ns.dialFrom("", addr) }

// dialFrom is dial from a given local address of the namespace ("": any).
func (ns tapNS) dialFrom(local, addr string) (net.Conn, error) {
	var c net.Conn
	err := ns.inNS(func() (err error) {
		d := net.Dialer{Timeout: 20 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
		c, err = d.Dial("tcp", addr)
		return err
	})
	return c, err
}

// ip runs `ip -n NS args...` (fatal on failure).
func (ns tapNS) ip(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", append([]string{"-n", ns.name}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("ip -n %s %s: %v\n%s", ns.name, strings.Join(args, " "), err, out)
	}
}

// boot boots `prog args` on the namespace's tap with `-net tap=gmtap0,PLAN`
// and more gometal flags, and waits for `ready`.
func (ns tapNS) boot(t *testing.T, plan string, flags []string, ready, prog string, args ...string) *netServer {
	t.Helper()
	net := "tap=gmtap0"
	if plan != "" {
		net += "," + plan
	}
	argv := append([]string{"netns", "exec", ns.name, gometal, "run", "-timeout", "240s", "-net", net}, flags...)
	return startBoot(t, exec.Command("ip", append(append(argv, prog), args...)...), ready)
}

func TestNetTap(t *testing.T) { parallelArches(t, testNetTap) }

func testNetTap(t *testing.T, a *arch) {
	// Not parallel: the architectures take turns with the one namespace name.
	ns := newTapNS(t)
	srv := ns.boot(t, "ip=10.77.0.2/24,gw=10.77.0.1", []string{"-cores", "2", "-kernel-args", "stats"}, "tcpecho: listening", a.prog("tcpecho"), "quit")
	output := srv.output
	if !strings.Contains(output(), "address 10.77.0.2/24") || !strings.Contains(output(), "offloads: checksum tx true rx true, segmentation tcp4 true") {
		t.Fatalf("the device's plan or offloads are not the tap's:\n%s", output())
	}
	const addr = "10.77.0.2:7"
	small := func(tag string) {
		t.Helper()
		data := []byte("still serving " + tag)
		c, err := ns.dial(addr)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tag, err, output())
		}
		back, err := echoConn(c, data)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("%s: %q, %v\n%s", tag, back, err, output())
		}
	}
	small("first")

	// A large transfer each way at once, checked whole.
	mib := 3 * netMiB()
	data := randomBytes(mib << 20)
	c, err := ns.dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	back, err := echoConn(c, data)
	if err != nil || sha256.Sum256(back) != sha256.Sum256(data) {
		t.Fatalf("%d MiB echo: %v, %d bytes back\n%s", mib, err, len(back), output())
	}
	t.Logf("%d MiB each way in %v", mib, time.Since(start).Round(time.Millisecond))

	// A peer that resets in the middle of a transfer.
	c, err = ns.dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetWriteDeadline(time.Now().Add(2 * time.Second)) // it echoes; we do not read
	c.Write(data[:4<<20])
	c.(*net.TCPConn).SetLinger(0)
	c.Close()
	small("after a reset mid-transfer")

	// A peer that sends and never reads: the server's writes meet a zero
	// window; others are served meanwhile; then the peer goes away.
	c, err = ns.dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetWriteDeadline(time.Now().Add(3 * time.Second))
	n, _ := c.Write(data) // stops when both sides' buffers are full
	small("beside a zero window")
	c.(*net.TCPConn).SetLinger(0)
	c.Close()
	small("after the zero window")
	t.Logf("the zero-window peer got %d bytes in before the window closed", n)

	// End the program: the kernel's statistics must show the offloads used.
	if c, err = ns.dial(addr); err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("quit"))
	if err := srv.wait(30 * time.Second); err != nil {
		t.Fatalf("gometal after quit: %v\n%s", err, output())
	}
	c.Close()
	m := regexp.MustCompile(`frames in larger than the MTU (\d+), dropped for a bad checksum (\d+); out for the device to segment (\d+)`).FindStringSubmatch(output())
	if m == nil {
		t.Fatalf("no NIC statistics:\n%s", output())
	}
	big, _ := strconv.Atoi(m[1])
	tso, _ := strconv.Atoi(m[3])
	if big == 0 || tso == 0 {
		t.Errorf("large receive %d packets, segmentation offload %d frames: want both used\n%s", big, tso, output())
	}
	t.Logf("packets larger than the MTU in %d, bad checksums %s, frames out for TSO %d", big, m[2], tso)
}
