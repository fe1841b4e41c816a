package tests

// TestNetBench boots the network benchmark's guest program (bench/net)
// with its three ports published and runs the host's load against it with
// tiny sizes, so that `gometal bench net` cannot rot: every figure must
// come back with requests (or bytes) and no errors. Nothing is timed.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gometal.dev/gometal/internal/bench"
)

func TestNetBench(t *testing.T) { parallelArches(t, testNetBench) }

func testNetBench(t *testing.T, a *arch) {
	t.Parallel()
	prog := buildNetBench(t, a)
	bootSem <- struct{}{}
	defer func() { <-bootSem }()
	var ports [3]int
	args := []string{"run", "-cores", "1", "-timeout", "240s"}
	for i, guest := range []int{80, 7, 9} {
		ports[i] = freePort(t)
		args = append(args, "-p", fmt.Sprintf("%d:%d", ports[i], guest))
	}
	args = append(args, prog, "-secs", "0.3", "-clients", "4", "-http-conns", "2", "-conns", "20", "-serve")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gometal, args...)
	cmd.Dir = modRoot
	cmd.Env = gometalEnv()
	outFile := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(outFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The load stops when the machine does, whatever the reason.
	loadCtx, stopLoad := context.WithCancel(ctx)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); stopLoad() }()
	results, note := bench.NetHostLoad(loadCtx, ports, 300*time.Millisecond, []int{20}, 2)
	runErr := <-exited
	outb, _ := os.ReadFile(outFile)
	out := string(outb)
	if note != "" {
		t.Errorf("host load: %s", note)
	}
	if runErr != nil {
		t.Errorf("gometal run: %v", runErr)
	}
	lines := strings.Split(out, "\n")
	var figures []string
	for _, l := range lines {
		if strings.Contains(l, "BENCH {") {
			figures = append(figures, l)
		}
	}
	for _, r := range results {
		figures = append(figures, fmt.Sprintf("%v", r))
	}
	all := strings.Join(figures, "\n")
	for _, want := range []string{`"mode":"goroutines"`, `"mode":"threads"`, `"what":"http-lo"`, `"what":"conns-lo"`,
		"what:http-host", "dir:in", "dir:out", "what:conns-dev", "opened:20", "mem_kib:"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s among the figures", want)
		}
	}
	for _, l := range figures {
		noErrors := strings.Contains(l, `"errors":0,`) || strings.Contains(l, "errors:0 ") || !strings.Contains(l, "errors")
		if strings.Contains(l, "problem") || strings.Contains(l, `"requests":0,`) || strings.Contains(l, "requests:0 ") || strings.Contains(l, "bytes:0 ") || !noErrors {
			t.Errorf("a figure failed: %s", l)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", tail(out, 40))
	}
}

func buildNetBench(t *testing.T, a *arch) string {
	t.Helper()
	prog := filepath.Join(t.TempDir(), "net")
	build := exec.Command("go", "build", "-o", prog, "./bench/net")
	build.Dir, build.Env = modRoot, append(os.Environ(), a.machine.Arch.BuildEnv()...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building bench/net: %v\n%s", err, out)
	}
	return prog
}

// TestNetHeapLimit holds more loopback connections than the kernel heap of
// a 128 MiB machine (16 MiB) has room for: new sockets must fail with
// ENOBUFS ("no buffer space available") and the program must go on; the
// kernel used to panic on an allocation failure at about 10,000.
func TestNetHeapLimit(t *testing.T) { parallelArches(t, testNetHeapLimit) }

func testNetHeapLimit(t *testing.T, a *arch) {
	t.Parallel()
	prog := buildNetBench(t, a)
	bootSem <- struct{}{}
	defer func() { <-bootSem }()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gometal, "run", "-cores", "1", "-mem", "128M", "-timeout", "240s", prog,
		"-secs", "0.2", "-clients", "2", "-http-conns", "1", "-conns", "8000")
	cmd.Dir = modRoot
	cmd.Env = gometalEnv()
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	if err != nil {
		t.Errorf("gometal run: %v", err)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"what":"conns-lo"`) {
			line = l
		}
	}
	switch {
	case strings.Contains(out, "kernel panic"):
		t.Errorf("the kernel panicked")
	case line == "":
		t.Errorf("no conns-lo figure")
	case !strings.Contains(line, "no buffer space available"):
		t.Errorf("8000 connections in a 128 MiB machine: want ENOBUFS, got %s", line)
	case strings.Contains(line, `"opened":0,`) || strings.Contains(line, `"requests":0,`):
		t.Errorf("the connections that were open did not serve: %s", line)
	}
	if t.Failed() {
		t.Logf("output:\n%s", tail(out, 30))
	}
}
