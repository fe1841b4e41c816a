package tests

// UDP through the network device: a guest program echoes datagrams the
// host sends to its port published with -p HOST:GUEST/udp, and exchanges
// datagrams (connected and not) with an echo server on the host, which the
// guest reaches as 10.0.2.2 on QEMU's user network, learns ECONNREFUSED
// from a closed host port, resolves a name with Go's resolver through
// QEMU's DNS forwarder (10.0.2.3), and pings 10.0.2.2 (ping and raw ICMP
// sockets).

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// udpEchoServer answers every datagram on a host UDP socket with itself.
func udpEchoServer(t *testing.T) int {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			pc.WriteTo(buf[:n], from)
		}
	}()
	return pc.LocalAddr().(*net.UDPAddr).Port
}

// freeUDPPort is a UDP port on 127.0.0.1 nobody holds now.
func freeUDPPort(t *testing.T) int {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	return pc.LocalAddr().(*net.UDPAddr).Port
}

// udpExchange sends msg to addr until its echo comes back (UDP may lose
// a datagram, and the guest may not have bound its port yet).
func udpExchange(c *net.UDPConn, msg []byte) error {
	buf := make([]byte, 2048)
	for try := 0; try < 20; try++ {
		if _, err := c.Write(msg); err != nil {
			return err
		}
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, err := c.Read(buf)
		if err == nil && bytes.Equal(buf[:n], msg) {
			return nil
		}
	}
	return fmt.Errorf("no echo of %q", msg)
}

func TestNetUDP(t *testing.T) { parallelArches(t, testNetUDP) }

func testNetUDP(t *testing.T, a *arch) {
	t.Parallel()
	echoPort := udpEchoServer(t)
	for _, cores := range []int{1, 4} {
		t.Run(fmt.Sprintf("smp%d", cores), func(t *testing.T) {
			bootSem <- struct{}{}
			defer func() { <-bootSem }()
			hostPort := freeUDPPort(t)
			out, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			cmd := exec.Command(gometal, "run", "-timeout", "120s", "-cores", strconv.Itoa(cores),
				"-p", fmt.Sprintf("%d:5353/udp", hostPort), a.prog("udpnet"), "5353", strconv.Itoa(echoPort),
				strconv.Itoa(freeUDPPort(t)))
			cmd.Dir = modRoot
			cmd.Env = gometalEnv()
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			output := func() string { b, _ := os.ReadFile(out.Name()); return string(b) }
			defer func() {
				cmd.Process.Kill()
				<-done
			}()
			c, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: hostPort})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			deadline := time.Now().Add(60 * time.Second)
			for !strings.Contains(output(), "udpnet: listening") {
				select {
				case err := <-done:
					done <- err
					t.Fatalf("udpnet ended before it listened (%v):\n%s", err, output())
				case <-time.After(100 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("udpnet not listening after 60s:\n%s", output())
				}
			}
			for i := 0; i < 20; i++ {
				if err := udpExchange(c, []byte(fmt.Sprintf("host datagram %d", i))); err != nil {
					t.Fatalf("%v\n%s", err, output())
				}
			}
			// The guest's own checks run meanwhile; then it is told to end.
			for !strings.Contains(output(), "udpnet: guest to host ok") && !strings.Contains(output(), "FAIL") {
				if time.Now().After(deadline.Add(60 * time.Second)) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			var status error
			for end := false; !end; {
				c.Write([]byte("quit"))
				select {
				case status = <-done:
					done <- status
					end = true
				case <-time.After(2 * time.Second):
				}
			}
			if status != nil || !hasLine(output(), "PASS udpnet") {
				t.Fatalf("udpnet: %v\n%s", status, output())
			}
			// Where the host's resolver answers, the guest's did too.
			_, err = net.LookupHost("gometal-test.invalid")
			var de *net.DNSError
			if errors.As(err, &de) && de.IsNotFound && !hasLine(output(), "udpnet: dns: not found") {
				t.Fatalf("the host resolves, the guest did not:\n%s", output())
			}
		})
	}
}

// TestNetIPv6: the guest (fec0::15) reaches TCP and UDP servers on the
// host's ::1 as fec0::2, and pings fec0::2. (QEMU 7.2 publishes ports on
// IPv4 only.)
func TestNetIPv6(t *testing.T) { parallelArches(t, testNetIPv6) }

func testNetIPv6(t *testing.T, a *arch) {
	t.Parallel()
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skipf("the host has no IPv6 loopback: %v", err)
	}
	defer ln.Close()
	go serveUpper(ln)
	pc, err := net.ListenPacket("udp6", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			pc.WriteTo(bytes.ToUpper(buf[:n]), from)
		}
	}()
	tcpPort := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	udpPort := strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
	for _, cores := range []int{1, 4} {
		out, status := bootMount(t, "-cores", strconv.Itoa(cores), "-net", a.prog("netv6"), tcpPort, udpPort)
		if status != 0 || !hasLine(out, "PASS netv6") {
			t.Errorf("smp%d: status %d\n%s", cores, status, out)
		}
	}
}
