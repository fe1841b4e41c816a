package tests

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUIODisk boots examples/fatls with a FAT32 image made on the host
// (mkfs.fat, mcopy): the Go virtio-blk driver over UIO must list the
// host's file and write one that the host then reads back (mtype), at 1
// and 4 harts.
func TestUIODisk(t *testing.T) { forArches(t, testUIODisk) }

func testUIODisk(t *testing.T, a *arch) {
	for _, tool := range []string{"mkfs.fat", "mcopy", "mtype"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not installed: make deps installs dosfstools and mtools", tool)
		}
	}
	for _, cores := range []int{1, 4} {
		t.Run(fmt.Sprintf("smp%d", cores), func(t *testing.T) {
			t.Parallel()
			bootSem <- struct{}{}
			defer func() { <-bootSem }()
			dir := t.TempDir()
			img := filepath.Join(dir, "fat.img")
			host := filepath.Join(dir, "host.txt")
			mustRun(t, "mkfs.fat", "-F", "32", "-C", img, "40960")
			if err := os.WriteFile(host, []byte("from the host side\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			mustRun(t, "mcopy", "-i", img, host, "::HOST.TXT")
			text := fmt.Sprintf("gometal at %d harts", cores)
			ctx, cancel := context.WithTimeout(context.Background(), hostTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, gometal, "run", "-cores", fmt.Sprint(cores), "-timeout", "60s",
				"-disk", img, a.example("fatls"), "FROMGO.TXT", text)
			cmd.Dir = modRoot
			cmd.Env = gometalEnv()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("gometal run: %v\n%s", err, out)
			}
			for _, want := range []string{`HOST.TXT  "from the host side"`, "wrote FROMGO.TXT", "read back equal=true"} {
				if !strings.Contains(strings.ReplaceAll(string(out), "host.txt", "HOST.TXT"), want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if got := mustRun(t, "mtype", "-i", img, "::FROMGO.TXT"); got != text+"\n" {
				t.Errorf("the host reads FROMGO.TXT as %q, want %q", got, text+"\n")
			}
		})
	}
}

func mustRun(t *testing.T, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// TestUIOSerial boots examples/uartecho with a PCI 16550 whose other end is
// a TCP socket on the host: lines sent from the host come back upper-cased
// (receive interrupts through UIO), and "bye" ends the program.
func TestUIOSerial(t *testing.T) { forArches(t, testUIOSerial) }

func testUIOSerial(t *testing.T, a *arch) {
	for _, cores := range []int{1, 4} {
		t.Run(fmt.Sprintf("smp%d", cores), func(t *testing.T) {
			t.Parallel()
			bootSem <- struct{}{}
			defer func() { <-bootSem }()
			port := freePort(t)
			ctx, cancel := context.WithTimeout(context.Background(), hostTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, gometal, "run", "-cores", fmt.Sprint(cores), "-timeout", "60s",
				"-device", fmt.Sprintf("serial=tcp:127.0.0.1:%d", port), a.example("uartecho"))
			cmd.Dir = modRoot
			cmd.Env = gometalEnv()
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			conn := dialRetry(t, fmt.Sprintf("127.0.0.1:%d", port), 60*time.Second)
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(60 * time.Second))
			want := "ready\nHELLO UART\nSECOND LINE\nBYE\n"
			ready := make([]byte, 6)
			if _, err := io.ReadFull(conn, ready); err != nil || string(ready) != "ready\n" {
				t.Fatalf("the program's greeting: %q, %v\n%s", ready, err, out.String())
			}
			want = want[len(ready):]
			// Split sends: the program must reassemble lines across interrupts.
			for _, part := range []string{"hello ", "uart\nsecond line\n", "bye\n"} {
				if _, err := conn.Write([]byte(part)); err != nil {
					t.Fatal(err)
				}
				time.Sleep(100 * time.Millisecond)
			}
			got := make([]byte, 0, len(want))
			buf := make([]byte, 64)
			for len(got) < len(want) {
				n, err := conn.Read(buf)
				got = append(got, buf[:n]...)
				if err != nil {
					break
				}
			}
			if string(got) != want {
				t.Errorf("echo = %q, want %q", got, want)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("gometal run: %v\n%s", err, out.String())
			}
			if !strings.Contains(out.String(), "uartecho: 3 lines echoed") {
				t.Errorf("output lacks the line count:\n%s", out.String())
			}
		})
	}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// dialRetry dials until QEMU listens (it starts the socket server at boot).
func dialRetry(t *testing.T, addr string, within time.Duration) net.Conn {
	deadline := time.Now().Add(within)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("QEMU's serial socket %s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
