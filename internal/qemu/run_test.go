package qemu

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gometal.dev/gometal/internal/machine"
)

// fakeQEMU writes a shell script that stands in for QEMU: it ignores its
// arguments and runs body. exec keeps the script a single process, so
// signals reach the command that matters.
func fakeQEMU(t *testing.T, body string) Config {
	t.Helper()
	p := filepath.Join(t.TempDir(), "qemu")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return Config{Machine: machine.Default(), Binary: p}
}

func TestRunExitStatusAndOutput(t *testing.T) {
	var out bytes.Buffer
	stdio := Stdio{Stdin: strings.NewReader("input\n"), Stdout: &out, Stderr: os.Stderr}
	res, err := Run(fakeQEMU(t, `read line; echo "got $line"; exit 7`), stdio, RunOptions{})
	if err != nil || res.ExitCode != 7 || res.TimedOut || res.Interrupted != nil {
		t.Fatalf("Run = %+v, %v; want exit 7", res, err)
	}
	if out.String() != "got input\n" {
		t.Errorf("stdout = %q", out.String())
	}
}

func TestRunKilledBySignal(t *testing.T) {
	res, err := Run(fakeQEMU(t, `kill -KILL $$`), Stdio{}, RunOptions{})
	if err != nil || res.ExitCode != 128+9 {
		t.Fatalf("Run = %+v, %v; want exit 137", res, err)
	}
}

func TestRunTimeout(t *testing.T) {
	start := time.Now()
	res, err := Run(fakeQEMU(t, `exec sleep 30`), Stdio{}, RunOptions{Timeout: 100 * time.Millisecond})
	if err != nil || !res.TimedOut {
		t.Fatalf("Run = %+v, %v; want timed out", res, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timeout took %v", d)
	}
}

func TestRunTimeoutEscalatesToKill(t *testing.T) {
	cfg := fakeQEMU(t, `trap '' TERM; while :; do sleep 0.05; done`)
	res, err := Run(cfg, Stdio{}, RunOptions{Timeout: 50 * time.Millisecond, Grace: 100 * time.Millisecond})
	if err != nil || !res.TimedOut || res.ExitCode != 128+9 {
		t.Fatalf("Run = %+v, %v; want timed out and killed", res, err)
	}
}

func TestRunForwardsSignals(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGINT
	res, err := Run(fakeQEMU(t, `exec sleep 30`), Stdio{}, RunOptions{Signals: sigs})
	if err != nil || res.Interrupted != syscall.SIGINT || res.ExitCode != 128+2 {
		t.Fatalf("Run = %+v, %v; want interrupted by SIGINT", res, err)
	}
}

func TestRunMissingBinary(t *testing.T) {
	if _, err := Run(Config{Binary: "/no/such/qemu"}, Stdio{}, RunOptions{}); err == nil {
		t.Fatal("Run with a missing binary succeeded")
	}
}

// TestRunPassesSignalsToGuest: with Guest set, signals go to the guest, not
// QEMU; a stop signal the guest does not end on within StopGrace stops QEMU
// and the run reports that signal.
func TestRunPassesSignalsToGuest(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	sigs <- syscall.SIGUSR1
	sigs <- syscall.SIGTERM
	var got []os.Signal
	guest := func(s os.Signal) error { got = append(got, s); return nil }
	res, err := Run(fakeQEMU(t, `exec sleep 30`), Stdio{}, RunOptions{Signals: sigs, Guest: guest, StopGrace: 100 * time.Millisecond})
	if err != nil || res.Interrupted != syscall.SIGTERM {
		t.Fatalf("Run = %+v, %v; want interrupted by SIGTERM after the grace", res, err)
	}
	if len(got) != 2 || got[0] != syscall.SIGUSR1 || got[1] != syscall.SIGTERM {
		t.Errorf("the guest got %v, want [SIGUSR1 SIGTERM]", got)
	}
}

// TestRunGuestExitsOnSignal: a guest that ends on the signal gives its own
// status, not 128+signal.
func TestRunGuestExitsOnSignal(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGINT
	guest := func(os.Signal) error { return nil }
	res, err := Run(fakeQEMU(t, `sleep 0.3; exit 7`), Stdio{}, RunOptions{Signals: sigs, Guest: guest, StopGrace: 10 * time.Second})
	if err != nil || res.Interrupted != nil || res.ExitCode != 7 {
		t.Fatalf("Run = %+v, %v; want the guest's exit 7", res, err)
	}
}
