package main

import (
	"bytes"
	"flag"
	"io"
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

// commandFlagSets are every command's flag sets, as -h prints them.
func commandFlagSets() map[string]*flag.FlagSet {
	run, _ := newRunFlagSet()
	exec, _ := newExecFlagSet()
	build, _ := newBuildFlagSet()
	bench, _ := newBenchFlagSet()
	version, _ := newVersionFlagSet()
	return map[string]*flag.FlagSet{"run": run, "exec": exec, "build": build, "bench": bench, "version": version}
}

// wantFlags is gometal's flag vocabulary: each flag, the commands that
// take it with its default in each (as -h shows it: "0" is none), and a
// phrase its help must have. A flag that means one thing has one help
// text in every command; a new flag, or one added to another command,
// is a line here.
var wantFlags = []struct{ name, defaults, meaning string }{
	{"accel", "run=auto exec=auto bench=auto", "QEMU's accelerator"},
	{"add", "run= exec= build=", "add a host file or directory tree"},
	{"arch", "run= build= bench=", "the architecture to build a package for"},
	{"conns", "bench=", "connection counts"},
	{"core-counts", "bench=", "CPU counts (each 1 to 64) the scaling benchmarks boot at"},
	{"cores", "run=4 exec=4 build=0 bench=0", "of CPUs the program runs on, 1 to 64"},
	{"device", "run= exec=", "a device through UIO"},
	{"disk", "run= exec=", "raw disk image"},
	{"earlycon", "build=", "arm64: the UART"},
	{"env", "run= exec= build=", "in the program's environment"},
	{"gdb", "run=false", "gdb server"},
	{"grace", "run=10s exec=10s", "go to the program"},
	{"kernel", "run= exec= build= bench= version=", "$GOMETAL_KERNEL for riscv64, $GOMETAL_KERNEL_ARM64 for arm64"},
	{"kernel-args", "run= exec= build=", "kernel command-line options"},
	{"ldflags", "run= build=", "linker flags"},
	{"linux", "bench=false", "Linux kernel"},
	{"machine", "run= exec=", "the machine to boot on"},
	{"max-dir", "exec=100M", "pack at most"},
	{"mem", "run=256M exec=4G bench=256M", "guest memory"},
	{"module", "exec=auto", "how the test sees its module"},
	{"mount", "run= exec=", "share a host directory"},
	{"net", "run= exec=", "network device"},
	{"no-dir", "exec=false", "neither the working directory"},
	{"no-module", "exec=false", "only the working directory"},
	{"o", "build=", "image file to write"},
	{"on-exit", "build=poweroff", "when the program ends"},
	{"out", "bench=", "the report"},
	{"p", "run= exec=", "publish a guest port"},
	{"qemu", "run= exec= bench=", "qemu-system-riscv64 for riscv64, qemu-system-aarch64 for arm64"},
	{"quick", "bench=false", "small problem sizes"},
	{"runs", "bench=0", "boots per configuration"},
	{"sched", "run= exec= build=", "thread placement policy"},
	{"tags", "run= build=", "build tags"},
	{"tap", "bench=false", "tap device"},
	{"tap-mq", "bench=false", "multiqueue"},
	{"timeout", "run=0s exec=0s", "exit 124"},
	{"v", "run=false exec=false build=false", "verbose"},
	{"virtio", "run= exec=", "virtio devices"},
}

// TestFlagTable: every command takes exactly the flags wantFlags gives
// it, each with its default there and one help text everywhere.
func TestFlagTable(t *testing.T) {
	sets := commandFlagSets()
	want := map[string][]string{} // command: its flags
	for _, w := range wantFlags {
		usage := ""
		for _, pair := range strings.Fields(w.defaults) {
			cmd, def, _ := strings.Cut(pair, "=")
			want[cmd] = append(want[cmd], w.name)
			f := sets[cmd].Lookup(w.name)
			if f == nil {
				t.Errorf("%s has no -%s", cmd, w.name)
				continue
			}
			if f.DefValue != def {
				t.Errorf("%s -%s defaults to %q, want %q", cmd, w.name, f.DefValue, def)
			}
			if !strings.Contains(f.Usage, w.meaning) {
				t.Errorf("%s -%s: help %q lacks %q", cmd, w.name, f.Usage, w.meaning)
			}
			if usage != "" && f.Usage != usage {
				t.Errorf("-%s means two things: %q, and in %s %q", w.name, usage, cmd, f.Usage)
			}
			usage = f.Usage
		}
	}
	for cmd, fs := range sets {
		if got := flagNames(fs); !slices.Equal(got, want[cmd]) {
			t.Errorf("%s takes %v, want %v", cmd, got, want[cmd])
		}
	}
}

// TestCoresIsACount: -cores is one count everywhere; a list (bench's old
// -cores) is refused with a pointer to -core-counts, which takes it.
func TestCoresIsACount(t *testing.T) {
	for _, args := range [][]string{{"bench", "-cores", "1,2"}, {"run", "-cores", "1,2", "x"}, {"build", "-o", "x.img", "-cores", "1,2", "x"}} {
		var stderr bytes.Buffer
		code := dispatch(args, io.Discard, &stderr)
		if want := "-cores: one count of CPUs, not a list (bench boots at several counts with -core-counts 1,2)"; code != 2 || !strings.Contains(stderr.String(), want) {
			t.Errorf("gometal %q: exit %d, %q; want 2 and %q", args, code, stderr.String(), want)
		}
	}
	for _, bad := range []string{"0", "65", "two"} {
		if code := dispatch([]string{"run", "-cores", bad, "x"}, io.Discard, io.Discard); code != 2 {
			t.Errorf("run -cores %s: exit %d, want 2", bad, code)
		}
	}
	for _, c := range []struct {
		args []string
		want []int
		err  string
	}{
		{nil, []int{1, 2, 4}, ""},
		{[]string{"-quick"}, []int{1, 2}, ""},
		{[]string{"-cores", "3"}, []int{3}, ""},
		{[]string{"-core-counts", "1,8"}, []int{1, 8}, ""},
		{[]string{"-cores", "2", "-core-counts", "1,2"}, nil, "give one"},
	} {
		f, _, err := parseBenchArgs(c.args)
		if err != nil {
			t.Fatal(err)
		}
		got, err := benchCores(f)
		if !slices.Equal(got, c.want) || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("bench %q: %v, %v; want %v, %q", c.args, got, err, c.want, c.err)
		}
	}
}

// TestArch: run, build and bench pick the architecture by one rule
// (machine.ResolveArch): a package is built for -arch, -machine's,
// $GOARCH or else riscv64 on this host; a bad -arch is a usage error.
func TestArch(t *testing.T) {
	for _, c := range []struct {
		archFlag, machine, goarch, want string
	}{
		{"riscv64", "", "amd64", "riscv64"},
		{"", "", "amd64", "riscv64"}, // the user's host setting is not ours
		{"arm64", "", "amd64", "arm64"},
		{"", "", "arm64", "arm64"}, // GOARCH=arm64 gometal build . builds arm64
		{"", "arm64-virt-max", "riscv64", "arm64"},
	} {
		t.Setenv("GOARCH", c.goarch)
		a, err := programArch("build", c.archFlag, c.machine, ".", goPackage)
		if err != nil || a.Name != c.want {
			t.Errorf("-arch %q -machine %q GOARCH=%s: %v, %v; want %s", c.archFlag, c.machine, c.goarch, a, err, c.want)
		}
	}
	for _, cmd := range []string{"run", "build", "bench"} {
		var stderr bytes.Buffer
		args := map[string][]string{
			"run":   {"run", "-arch", "amd64", "x"},
			"build": {"build", "-o", "x.img", "-arch", "amd64", "x"},
			"bench": {"bench", "-arch", "amd64", "mandelbrot"},
		}[cmd]
		want := cmd + `: -arch "amd64": want riscv64 or arm64`
		if code := dispatch(args, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), want) {
			t.Errorf("gometal %q: exit %d, %q; want 2, %q", args, code, stderr.String(), want)
		}
	}
}

// TestMemMinimum: a -mem below what the machine boots in is one line
// naming the minimum, and the usage status.
func TestMemMinimum(t *testing.T) {
	for _, m := range []*machine.Machine{machine.RISCV64Virt, machine.ARM64Virt} {
		var stderr bytes.Buffer
		err := checkMem("run", "1K", m)
		want := "gometal: run: -mem 1K: " + m.Name + " boots with at least 16M of memory\nrun 'gometal run -h' for usage\n"
		if code := report(&stderr, err); code != 2 || stderr.String() != want {
			t.Errorf("%s: exit %d, %q; want 2, %q", m.Name, code, stderr.String(), want)
		}
		if err := checkMem("run", "16M", m); err != nil {
			t.Errorf("%s -mem 16M: %v", m.Name, err)
		}
	}
	var stderr bytes.Buffer
	// -qemu names no QEMU: were the check gone, bench would stop there.
	if code := dispatch([]string{"bench", "-mem", "1M", "-qemu", "/nonexistent/qemu", "mandelbrot"}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "boots with at least 16M") {
		t.Errorf("bench -mem 1M: exit %d, %q", code, stderr.String())
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
	if err != nil {
		t.Fatal(err)
	}
	arch, err := programArch("run", f.arch, f.machine, f.target, goPackage)
	if err != nil || arch != machine.ARM64 {
		t.Fatalf("-machine arm64-virt-max: %v, %v", arch, err)
	}
	if m, err := f.machineFor("run", arch); err != nil || m.Name != "arm64-virt-max" || m.CPU != "max" {
		t.Fatalf("machineFor: %v, %v", m, err)
	}
	if _, err := programArch("run", "riscv64", f.machine, f.target, goPackage); err == nil || !strings.Contains(err.Error(), "-machine arm64-virt-max runs arm64 programs; this one is riscv64") {
		t.Errorf("machine of the other architecture: %v", err)
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
