package main

import (
	"bytes"
	"flag"
	"slices"
	"strings"
	"testing"

	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// flagNames lists fs's flags.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// TestRunExecFlagParity: run and exec share every machine flag, with the
// same name, default and help except where flagTexts says otherwise;
// whatever only one of them takes is listed here, so that a flag added to
// one command alone is a decision, not an accident.
func TestRunExecFlagParity(t *testing.T) {
	runOnly := []string{"arch", "gdb", "ldflags", "tags"}
	execOnly := []string{"max-dir", "module", "no-dir", "no-module"}
	// The flags whose help (and for -mem, default) flagTexts lets differ.
	shaded := []string{"add", "env", "kernel-args", "mem", "sched", "timeout", "v"}

	runFS, _ := newRunFlagSet()
	execFS, _ := newExecFlagSet()
	shared := flag.NewFlagSet("shared", flag.ContinueOnError)
	new(machineFlags).register(shared, runFlagTexts)
	sharedNames := flagNames(shared)

	for _, name := range flagNames(runFS) {
		if !slices.Contains(sharedNames, name) && !slices.Contains(runOnly, name) {
			t.Errorf("run -%s is neither a machine flag nor listed as run's own", name)
		}
	}
	for _, name := range flagNames(execFS) {
		if !slices.Contains(sharedNames, name) && !slices.Contains(execOnly, name) {
			t.Errorf("exec -%s is neither a machine flag nor listed as exec's own", name)
		}
	}
	for _, name := range sharedNames {
		r, e := runFS.Lookup(name), execFS.Lookup(name)
		if r == nil || e == nil {
			t.Errorf("-%s: run has it %v, exec has it %v", name, r != nil, e != nil)
			continue
		}
		if slices.Contains(shaded, name) {
			continue
		}
		if r.Usage != e.Usage || r.DefValue != e.DefValue {
			t.Errorf("-%s differs: run %q (default %q), exec %q (default %q)", name, r.Usage, r.DefValue, e.Usage, e.DefValue)
		}
	}
	if d := execFS.Lookup("mem").DefValue; d != defaultExecMem {
		t.Errorf("exec -mem defaults to %s", d)
	}
	if d := runFS.Lookup("mem").DefValue; d != "256M" {
		t.Errorf("run -mem defaults to %s", d)
	}
}

// TestBenchSharesMachineFlags: bench's -qemu and -kernel are run's.
func TestBenchSharesMachineFlags(t *testing.T) {
	runFS, _ := newRunFlagSet()
	benchFS, _ := newBenchFlagSet()
	for _, name := range []string{"qemu", "kernel"} {
		if r, b := runFS.Lookup(name), benchFS.Lookup(name); r.Usage != b.Usage {
			t.Errorf("-%s: run %q, bench %q", name, r.Usage, b.Usage)
		}
	}
	if u := runFS.Lookup("qemu").Usage; !strings.Contains(u, "qemu-system-riscv64 or qemu-system-aarch64") {
		t.Errorf("-qemu help: %q", u)
	}
}

// TestRunArch: -arch names an architecture gometal runs (riscv64 or
// arm64); anything else is one clear line naming them.
func TestRunArch(t *testing.T) {
	f, err := parseRunFlags([]string{"-arch", "riscv64", "prog"})
	if err != nil || f.arch.Name != "riscv64" {
		t.Fatalf("-arch riscv64: %v, %v", f, err)
	}
	t.Setenv("GOARCH", "amd64") // the user's host setting is not ours
	if f, err = parseRunFlags([]string{"prog"}); err != nil || f.arch.Name != "riscv64" {
		t.Fatalf("default: %v, %v", f, err)
	}
	if f, err = parseRunFlags([]string{"-arch", "arm64", "prog"}); err != nil || f.arch.Name != "arm64" {
		t.Fatalf("-arch arm64: %v, %v", f, err)
	}
	for arch, want := range map[string]string{
		"amd64": `run: -arch "amd64": want riscv64 or arm64`,
	} {
		if _, err := parseRunFlags([]string{"-arch", arch, "prog"}); err == nil || err.Error() != want {
			t.Errorf("-arch %s: %v; want %q", arch, err, want)
		}
	}
}

// TestBootRefusesUnsupportedMachine: a described machine without a
// kernel is one line and exit status 2, before QEMU starts.
func TestBootRefusesUnsupportedMachine(t *testing.T) {
	for _, m := range []*machine.Machine{machine.RISCV64SifiveU} {
		var stderr bytes.Buffer
		err := boot(qemu.Config{Machine: m, Binary: "/nonexistent/qemu", SMP: 2, Kernel: "k"}, bootOptions{})
		code := report(&stderr, err)
		want := "gometal: machine " + m.Name + " is not supported yet: gometal's kernel boots on riscv64-virt, arm64-virt, arm64-virt-gicv2 and arm64-virt-max\n"
		if code != 2 || stderr.String() != want {
			t.Errorf("%s: exit %d, %q; want 2, %q", m.Name, code, stderr.String(), want)
		}
	}
}

// TestAccelFlag: run, exec and bench take the same -accel (one definition,
// default auto), and a value that is not an accelerator is a usage error.
func TestAccelFlag(t *testing.T) {
	runFS, _ := newRunFlagSet()
	execFS, _ := newExecFlagSet()
	benchFS, _ := newBenchFlagSet()
	r, e, b := runFS.Lookup("accel"), execFS.Lookup("accel"), benchFS.Lookup("accel")
	if r == nil || e == nil || b == nil {
		t.Fatalf("-accel: run %v, exec %v, bench %v", r != nil, e != nil, b != nil)
	}
	if r.Usage != e.Usage || r.Usage != b.Usage || r.DefValue != "auto" || e.DefValue != "auto" || b.DefValue != "auto" {
		t.Errorf("-accel differs between run, exec and bench")
	}
	if err := parseAccelFlag("run", "kvm"); err != nil {
		t.Errorf("-accel kvm: %v", err)
	}
	if err := parseAccelFlag("run", "xen"); err == nil || !strings.Contains(err.Error(), "auto, kvm, hvf, tcg") {
		t.Errorf("-accel xen: %v", err)
	}
}

// TestRunMachine: -machine names a machine from the table; a package with
// no -arch is built for the machine's architecture; a machine of another
// architecture than the program's is one line.
func TestRunMachine(t *testing.T) {
	t.Setenv("GOARCH", "amd64")
	f, err := parseRunFlags([]string{"-machine", "arm64-virt-max", "./prog"})
	if err != nil || f.arch.Name != "arm64" {
		t.Fatalf("-machine arm64-virt-max: %v, %v", f, err)
	}
	if m, err := f.machineFor("run", f.arch); err != nil || m.Name != "arm64-virt-max" || m.CPU != "max" {
		t.Fatalf("machineFor: %v, %v", m, err)
	}
	if m, err := f.machineFor("run", machine.RISCV64); err == nil || !strings.Contains(err.Error(), "-machine arm64-virt-max runs arm64 programs; this one is riscv64") {
		t.Errorf("machine of the other architecture: %v, %v", m, err)
	}
	if f, err = parseRunFlags([]string{"prog"}); err != nil {
		t.Fatal(err)
	}
	if m, err := f.machineFor("run", machine.ARM64); err != nil || m != machine.ARM64Virt {
		t.Errorf("default arm64 machine: %v, %v", m, err)
	}
	if _, err := parseRunFlags([]string{"-machine", "pdp11", "prog"}); err == nil || !strings.Contains(err.Error(), `run: -machine: "pdp11": want one of riscv64-virt, arm64-virt`) {
		t.Errorf("-machine pdp11: %v", err)
	}
}
