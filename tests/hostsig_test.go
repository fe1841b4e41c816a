package tests

// Signals from the host (issue 23): gometal passes SIGINT, SIGTERM, SIGHUP,
// SIGQUIT, SIGUSR1 and SIGUSR2 to the program; a program that ignores a
// stop signal is ended after -grace with 128+signal.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostSignals boots tests/progs/hostsig three ways and signals gometal
// once the program says it is ready.
func TestHostSignals(t *testing.T) { forArches(t, testHostSignals) }

func testHostSignals(t *testing.T, a *arch) {
	cases := []struct {
		name   string
		mode   string
		grace  string
		send   []syscall.Signal
		group  bool // to gometal's whole process group, as a terminal's Ctrl-C
		status int
		want   []string
	}{
		{"graceful", "graceful", "10s", []syscall.Signal{syscall.SIGUSR1, syscall.SIGTERM}, false, 7,
			[]string{"got user defined signal 1", "shutting down", "SIGINT received 0 times", "PASS hostsig"}},
		{"ctrl-c", "graceful", "10s", []syscall.Signal{syscall.SIGINT}, true, 7,
			[]string{"shutting down", "SIGINT received 1 times", "PASS hostsig"}},
		{"ignored", "ignore", "1s", []syscall.Signal{syscall.SIGTERM}, false, 128 + 15, nil},
		{"quit", "quit", "10s", []syscall.Signal{syscall.SIGQUIT}, false, 2,
			[]string{"SIGQUIT: quit", "goroutine 1 ", "main.main()"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			bootSem <- struct{}{}
			defer func() { <-bootSem }()
			start := time.Now()
			out, status, err := signalBoot(a, c.mode, c.grace, c.send, c.group)
			t.Logf("%s: status %d after %v", c.name, status, time.Since(start).Round(time.Millisecond))
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if status != c.status {
				t.Errorf("exit status %d, want %d\n%s", status, c.status, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q\n%s", w, out)
				}
			}
		})
	}
}

// signalBoot runs `gometal run -cores 2 -grace G hostsig MODE`, waits for
// "ready", sends the signals 200 ms apart and returns everything it
// printed (stdout, then stderr) and its exit status.
func signalBoot(a *arch, mode, grace string, sigs []syscall.Signal, group bool) (string, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hostTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, gometal, "run", "-timeout", "120s", "-cores", "2", "-grace", grace,
		a.prog("hostsig"), mode)
	cmd.Dir = modRoot
	cmd.Env = gometalEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", -1, err
	}
	if err := cmd.Start(); err != nil {
		return "", -1, err
	}
	var got strings.Builder
	lines := bufio.NewScanner(stdout)
	ready := false
	for !ready && lines.Scan() {
		got.WriteString(lines.Text() + "\n")
		ready = lines.Text() == "ready"
	}
	if ready {
		for _, s := range sigs {
			pid := cmd.Process.Pid
			if group {
				pid = -pid
			}
			syscall.Kill(pid, s)
			time.Sleep(200 * time.Millisecond)
		}
	}
	rest, _ := io.ReadAll(stdout)
	got.Write(rest)
	status, err := exitStatus(cmd.Wait())
	out := got.String() + stderr.String()
	if err == nil && !ready {
		err = fmt.Errorf("the program never printed ready")
	}
	return out, status, err
}
