package tests

// Profiling and CPU clocks (issue 23): tests/progs/cpuprof checks the
// CPU-time clocks and timers itself and prints a runtime/pprof CPU
// profile, which `go tool pprof` on the host must attribute to the busy
// function.

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestCPUProfile(t *testing.T) { parallelArches(t, testCPUProfile) }

func testCPUProfile(t *testing.T, a *arch) {
	t.Parallel()
	bootSem <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), hostTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, gometal, "run", "-cores", "2", "-timeout", "120s", a.prog("cpuprof"))
	cmd.Dir = modRoot
	cmd.Env = gometalEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	<-bootSem
	out := stdout.String()
	if err != nil || !strings.Contains(out, "PASS cpuprof") {
		t.Fatalf("cpuprof: %v\n%s%s", err, out, stderr.String())
	}
	var encoded string
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "profile: "); ok {
			encoded = rest
		} else if l != "" && l != "end profile" {
			t.Log(l)
		}
	}
	data, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		t.Fatalf("the profile: %v", err)
	}
	file := filepath.Join(t.TempDir(), "cpu.pb.gz")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=3", file).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, top)
	}
	t.Logf("go tool pprof -top:\n%s", top)
	// 1.5 s of main.hot at 100 Hz: well over 30 samples, hot among the top.
	m := regexp.MustCompile(`Total samples = ([0-9.]+)(m?s)`).FindSubmatch(top)
	if m == nil {
		t.Fatalf("no samples in the profile")
	}
	total, _ := strconv.ParseFloat(string(m[1]), 64)
	if string(m[2]) == "s" {
		total *= 1000
	}
	if total < 300 {
		t.Errorf("the profile has %.0f ms of samples for 1.5 s of CPU; want at least 300 ms", total)
	}
	if !strings.Contains(string(top), "main.hot") {
		t.Errorf("main.hot is not among the top functions")
	}
}
