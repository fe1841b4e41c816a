package tests

// The kernel reaches user memory only through mm/uaccess.rs, which copies
// through its linear map; a stray direct access must fault. With -v the
// kernel makes one such access at the program's start and says what
// happened (mm/strayaccess.rs): on riscv64 sstatus.SUM is clear, a load
// page fault; on arm64-virt-max (-cpu max, FEAT_PAN) PAN is on, a
// permission fault; on arm64-virt (Cortex-A72, ARMv8.0, no PAN) the load
// reads and the kernel says the CPU lacks PAN. Each boot runs useraccess,
// so user copies and access_ok work with the guard on.

import (
	"os/exec"
	"strings"
	"testing"
)

func TestUserMemoryGuard(t *testing.T) {
	parallelArches(t, func(t *testing.T, a *arch) {
		machines := map[string]string{
			"riscv64-virt": "gometal: user memory guarded (sstatus.SUM clear): a direct kernel load from user address 0x",
		}
		if a == arm64 {
			machines = map[string]string{
				"arm64-virt-max": "gometal: user memory guarded (PAN): a direct kernel load from user address 0x",
				"arm64-virt":     "gometal: the CPU lacks PAN (FEAT_PAN): a direct kernel load from user address 0x",
			}
		}
		for name, want := range machines {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				bootSem <- struct{}{}
				defer func() { <-bootSem }()
				cmd := exec.Command(gometal, "run", "-v", "-machine", name, "-cores", "2", "-timeout", guestTimeout.String(), a.prog("useraccess"))
				cmd.Env = gometalEnv()
				out, err := cmd.CombinedOutput()
				text := string(out)
				if err != nil || !strings.Contains(text, "PASS useraccess") || !strings.Contains(text, want) {
					t.Fatalf("gometal run -v -machine %s useraccess: %v; want PASS and %q\n%s", name, err, want, out)
				}
				fault := map[string]string{"riscv64-virt": "took a load page fault", "arm64-virt-max": "took a permission fault", "arm64-virt": "read it"}[name]
				if !strings.Contains(text, fault) {
					t.Fatalf("-machine %s: the direct load did not end as %q:\n%s", name, fault, out)
				}
			})
		}
	})
}
