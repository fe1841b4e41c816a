package tests

// The architectures the tests boot on: riscv64 (testMachine's, the
// default) and arm64. setup builds the test programs and examples for
// both and finds both kernels; a test that starts gometal itself runs its
// body once per architecture through forArches (subtests riscv64/... and
// arm64/...), and gometalEnv hands gometal both kernels, so the program's
// ELF alone picks the architecture, as it does for a user.

import (
	"os"
	"path/filepath"
	"testing"

	"gometal.dev/gometal/internal/gobuild"
	"gometal.dev/gometal/internal/kernelimage"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// arch is an architecture the tests boot programs on.
type arch struct {
	name       string           // the subtest name: "riscv64", "arm64"
	machine    *machine.Machine // what gometal run boots it on
	progDir    string           // tests/progs built for it
	exampleDir string           // examples/ built for it
	env        string           // the variable naming its kernel: GOMETAL_KERNEL, GOMETAL_KERNEL_ARM64
	kernel     string           // its kernel ELF
	qemu       string           // its QEMU
	err        error            // why it cannot boot here (no QEMU, no kernel)
}

var (
	riscv64 = newArch(testMachine)
	arm64   = newArch(machine.ARM64.Default())
	arches  = []*arch{riscv64, arm64}
)

func newArch(m *machine.Machine) *arch {
	return &arch{name: m.Arch.Name, machine: m, env: kernelimage.EnvFor(m.Arch.Name)}
}

// prog is the path of tests/progs/name built for a.
func (a *arch) prog(name string) string { return filepath.Join(a.progDir, name) }

// example is the path of examples/name built for a.
func (a *arch) example(name string) string { return filepath.Join(a.exampleDir, name) }

// summaryPrefix is what the boot summary puts before a case's name: riscv64's
// cases keep their plain names.
func (a *arch) summaryPrefix() string {
	if a == riscv64 {
		return ""
	}
	return a.name + "/"
}

// buildJobs are the builds of a's test programs and examples into dir
// (progs-ARCH/ and examples-ARCH/).
func (a *arch) buildJobs(dir string) []gobuild.Job {
	a.progDir = filepath.Join(dir, "progs-"+a.name) + string(filepath.Separator)
	a.exampleDir = filepath.Join(dir, "examples-"+a.name) + string(filepath.Separator)
	env := a.machine.Arch.BuildEnv()
	return []gobuild.Job{
		{What: "the test programs for " + a.name, Env: env, Args: []string{"build", "-o", a.progDir, "./tests/progs/..."}},
		{What: "the examples for " + a.name, Env: env, Args: []string{"build", "-o", a.exampleDir, "./examples/..."}},
	}
}

// find looks for a's QEMU and kernel (building the kernel with cargo, as
// the CLI would, unless its variable names one).
func (a *arch) find() {
	if a.qemu, a.err = qemu.Find("", a.machine.Arch); a.err != nil {
		return
	}
	k, err := kernelimage.NewFor(a.name, nil).Find("")
	if err == nil {
		k, err = filepath.Abs(k)
	}
	a.kernel, a.err = k, err
}

// forArches runs body once per architecture, as subtests named after it.
// An architecture that cannot boot here (no QEMU, no kernel) fails its
// subtest with the reason.
func forArches(t *testing.T, body func(t *testing.T, a *arch)) {
	for _, a := range arches {
		t.Run(a.name, func(t *testing.T) {
			if a.err != nil {
				t.Fatalf("cannot boot %s: %v", a.name, a.err)
			}
			body(t, a)
		})
	}
}

// parallelArches is forArches for a test that runs in parallel with the
// others (the body's own t.Parallel lets its architectures overlap too).
func parallelArches(t *testing.T, body func(t *testing.T, a *arch)) {
	t.Parallel()
	forArches(t, body)
}

// gometalEnv is the environment gometal runs in: both kernels named, so
// no boot waits on cargo and the program's architecture picks its kernel.
func gometalEnv() []string {
	env := os.Environ()
	for _, a := range arches {
		if a.kernel != "" {
			env = append(env, a.env+"="+a.kernel)
		}
	}
	return env
}
