package tests

// `gometal run -machine`: the same arm64 program on each arm64 virt
// variant the table describes (the GICv2 interrupt controller; -cpu max
// with SVE, pointer authentication and newer ID registers), through the
// CLI as a user runs it; and a machine of the other architecture refused
// in one line before anything boots.

import (
	"os/exec"
	"strings"
	"testing"
)

func TestMachineFlag(t *testing.T) {
	if arm64.err != nil {
		t.Fatalf("cannot boot arm64: %v", arm64.err)
	}
	prog := arm64.prog("hello")
	for _, name := range []string{"arm64-virt-gicv2", "arm64-virt-max"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bootSem <- struct{}{}
			defer func() { <-bootSem }()
			cmd := exec.Command(gometal, "run", "-machine", name, "-cores", "2", "-timeout", guestTimeout.String(), prog)
			cmd.Env = gometalEnv()
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "PASS hello") {
				t.Fatalf("gometal run -machine %s: %v\n%s", name, err, out)
			}
		})
	}
	t.Run("other-arch", func(t *testing.T) {
		cmd := exec.Command(gometal, "run", "-machine", "riscv64-virt", prog)
		cmd.Env = gometalEnv()
		out, _ := cmd.CombinedOutput()
		const want = "-machine riscv64-virt runs riscv64 programs; this one is arm64"
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), want) {
			t.Errorf("status %d, output %q; want 2 and %q", code, out, want)
		}
	})
}
