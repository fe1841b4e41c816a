package tests

// The CLI's answers to what it cannot run: one line and the right exit
// status, before any QEMU starts.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBadInput checks that the CLI rejects what it cannot run, quickly and
// with a useful message, before any QEMU starts.
func TestBadInput(t *testing.T) {
	textFile := filepath.Join(workDir, "notelf")
	if err := os.WriteFile(textFile, []byte("this is just text\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	type badInput struct {
		name    string
		args    []string
		status  int    // expected exit status; -1: any non-zero
		wantErr string // case-insensitive substring of stderr
	}
	tests := []badInput{
		{"text-file", []string{"run", textFile}, -1, "not an ELF"},
		{"host-binary", []string{"run", hostBin}, -1, "riscv64"},
		{"missing-file", []string{"run", filepath.Join(workDir, "does-not-exist")}, -1, "no such file"},
		{"no-program", []string{"run"}, -1, ""},
	}
	for _, a := range arches {
		other := "riscv64"
		if a == riscv64 {
			other = "arm64"
		}
		tests = append(tests,
			badInput{a.name + "/unknown-flag", []string{"run", "-no-such-flag", a.prog("hello")}, 2, ""},
			// Below the machine's minimum (internal/machine's table): one
			// line, before QEMU would fail with its own words and status 1.
			badInput{a.name + "/mem-below-minimum", []string{"run", "-mem", "1K", a.prog("hello")}, 2,
				"run: -mem 1K: " + a.machine.Name + " boots with at least 16M of memory"},
			badInput{a.name + "/cores-list", []string{"run", "-cores", "1,2", a.prog("hello")}, 2, "-core-counts 1,2"},
			// A binary is what its ELF says; an -arch that disagrees is an error.
			badInput{a.name + "/arch-disagrees", []string{"run", "-arch", other, a.prog("hello")}, 2,
				"built for " + a.name + ", not -arch " + other},
			badInput{a.name + "/build-arch-disagrees", []string{"build", "-o", filepath.Join(workDir, "never.img"), "-arch", other, a.prog("hello")}, 2,
				"built for " + a.name + ", not -arch " + other},
		)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, gometal, tc.args...)
			cmd.Dir = modRoot
			// Bad input must be rejected whether or not a kernel has to be
			// built; with one at hand no time goes into cargo.
			cmd.Env = gometalEnv()
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			status, runErr := exitStatus(err)
			report := func(format string, a ...any) {
				t.Errorf("%s\ncommand: %s\nexit status: %d after %.1fs\nstdout:\n%s\nstderr:\n%s",
					fmt.Sprintf(format, a...), shellQuote(append([]string{gometal}, tc.args...)),
					status, time.Since(start).Seconds(), tail(stdout.String(), 40), tail(stderr.String(), 40))
			}
			switch {
			case ctx.Err() != nil:
				report("gometal did not fail fast (killed after 60s)")
				return
			case runErr != nil:
				report("running gometal: %v", runErr)
				return
			case tc.status == -1 && status == 0:
				report("exit status 0, want non-zero")
			case tc.status >= 0 && status != tc.status:
				report("exit status %d, want %d", status, tc.status)
			}
			if tc.wantErr != "" && !strings.Contains(strings.ToLower(stderr.String()), strings.ToLower(tc.wantErr)) {
				report("stderr lacks %q", tc.wantErr)
			}
		})
	}
}
