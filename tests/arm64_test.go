package tests

// The arm64 port's boot tests: the core cases of TestBoot (one core and
// four, the exit status, signals and preemption, timers and the RTC, a
// fault turned into a Go panic) on QEMU's arm64 virt (Cortex-A72, GICv3),
// with the arm64 kernel ($GOMETAL_KERNEL_ARM64, else built from the
// checkout like the riscv64 one). The rest of TestBoot's cases run on
// riscv64 only for now (docs/porting.md, "arm64: what is tested").

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gometal.dev/gometal/internal/gobuild"
	"gometal.dev/gometal/internal/kernelimage"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// arm64Cases are the TestBoot cases (by name) that also boot on arm64 in
// `make test`; GOMETAL_TEST_ARM64=all boots every case there instead.
var arm64Cases = []string{"hello", "concurrency", "timers", "preempt", "nilderef", "exitcode-0", "exitcode-42"}

func onArm64(name string) bool {
	return os.Getenv("GOMETAL_TEST_ARM64") == "all" || slices.Contains(arm64Cases, name)
}

func TestBootArm64(t *testing.T) {
	if _, err := qemu.Find("", machine.ARM64); err != nil {
		t.Skipf("%v (make deps installs qemu-system-arm)", err)
	}
	k, err := kernelimage.NewFor("arm64", nil).Find("")
	if err != nil {
		t.Fatalf("no arm64 kernel: %v", err)
	}
	if k, err = filepath.Abs(k); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(workDir, "progs-arm64") + string(filepath.Separator)
	var pkgs []string
	for _, c := range cases() {
		if onArm64(c.name) && !c.example && !slices.Contains(pkgs, "./tests/progs/"+c.prog) {
			pkgs = append(pkgs, "./tests/progs/"+c.prog)
		}
	}
	build := gobuild.Job{What: "the arm64 test programs", Env: machine.ARM64.BuildEnv(), Args: append([]string{"build", "-o", dir}, pkgs...)}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	if err := gobuild.RunAll(ctx, modRoot, []gobuild.Job{build}, nil); err != nil {
		t.Fatal(err)
	}
	target := bootTarget{prefix: "arm64/", progDir: dir, env: kernelimage.EnvFor("arm64"), kernel: k}
	t.Logf("kernel: %s", k)
	for _, c := range cases() {
		if !onArm64(c.name) || c.example {
			continue
		}
		for _, r := range c.runs() {
			if c.smp && r.cores != 1 && r.cores != 4 {
				continue
			}
			if c.smp && r.sched != policiesAt(r.cores)[0] {
				continue // one policy per core count: the port, not the policies, is under test
			}
			t.Run(c.name+"/"+r.name(), func(t *testing.T) {
				if c.skipEnv != "" && os.Getenv(c.skipEnv) != "" {
					t.Skipf("skipped: %s is set", c.skipEnv)
				}
				t.Parallel()
				bootSem <- struct{}{}
				defer func() { <-bootSem }()
				runBootOn(t, c, r, target)
			})
		}
	}
}
