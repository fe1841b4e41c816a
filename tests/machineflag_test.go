package tests

// `gometal run -machine`: the same arm64 program on each arm64 virt
// variant the table describes (the GICv2 interrupt controller; -cpu max
// with SVE, pointer authentication and newer ID registers), through the
// CLI as a user runs it; and a machine of the other architecture refused
// in one line before anything boots.

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gometal.dev/gometal/internal/gobuild"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

func TestMachineFlag(t *testing.T) {
	if _, err := qemu.Find("", machine.ARM64); err != nil {
		t.Skipf("%v (make deps installs qemu-system-arm)", err)
	}
	prog := filepath.Join(t.TempDir(), "hello")
	build := gobuild.Job{What: "hello for arm64", Env: machine.ARM64.BuildEnv(), Args: []string{"build", "-o", prog, "./tests/progs/hello"}}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	if err := gobuild.RunAll(ctx, modRoot, []gobuild.Job{build}, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"arm64-virt-gicv2", "arm64-virt-max"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bootSem <- struct{}{}
			defer func() { <-bootSem }()
			out, err := exec.Command(gometal, "run", "-machine", name, "-cores", "2", "-timeout", guestTimeout.String(), prog).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "PASS hello") {
				t.Fatalf("gometal run -machine %s: %v\n%s", name, err, out)
			}
		})
	}
	t.Run("other-arch", func(t *testing.T) {
		cmd := exec.Command(gometal, "run", "-machine", "riscv64-virt", prog)
		out, _ := cmd.CombinedOutput()
		const want = "gometal: run: -machine riscv64-virt runs riscv64 programs; this one is arm64"
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), "-machine riscv64-virt runs riscv64 programs; this one is arm64") {
			t.Errorf("status %d, output %q; want 2 and %q", code, out, want)
		}
	})
}
