package tests

// The checked kernel: the release code with debug assertions and overflow
// checks (cargo profile `checked`, `go run ./tools/kernelimage -checked`),
// which compiles in the lock-order checks (kernel/src/sync/lockorder.rs,
// held.rs): a lock taken out of order, twice, or held into a sleep
// panics with the classes' names. TestCheckedKernel boots a subset of the
// test programs on it, chosen so that together they take every lock
// class, and proves it: with `-kernel-args stats` a checked kernel prints
// the classes it took (the "locks" member of its `gometal-stats:` JSON
// line), and the test fails
// naming any class no boot took, unless checkedUnreachable says why that
// architecture never takes it.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gometal.dev/gometal/internal/kernelimage"
	"gometal.dev/gometal/internal/kstats"
	"gometal.dev/gometal/internal/qemu"
)

// checkedBoot is one program booted on the checked kernel.
type checkedBoot struct {
	name  string
	flags []string // gometal run flags before the program
	prog  string   // under tests/progs
	args  []string
	// share, if set, is a host directory holding these files, mounted at
	// /data (-mount).
	share map[string]string
}

// checkedBoots: the subset, with what each brings that the others do not
// (measured with the classes each boot prints). Cheap programs at several
// CPU counts besides: every boot is another chance for the checks to
// catch an order taken only on some path.
var checkedBoots = []checkedBoot{
	// Sockets: TCP, UDP, ICMP, AF_UNIX (abstract names, datagram peers,
	// message queues), loopback through smoltcp. Smaller sizes than TestBoot's.
	{name: "net", flags: []string{"-cores", "2", "-mem", "256M"}, prog: "net", args: []string{"seq=1000", "bulk=2"}},
	// The network device: NIC socket sets, keep-alive changes, netlink.
	{name: "netif", flags: []string{"-cores", "2", "-net"}, prog: "netif", args: []string{"eth0"}},
	// A 9P share: 9P devices and ring, host file state, dead fids.
	{name: "hostfiles", flags: []string{"-cores", "2"}, prog: "hostfiles", args: []string{"write"},
		share: map[string]string{"keep.txt": "from the host\n", "remove-me.txt": "x", "old/inner.txt": "old",
			"swap/a/b.txt": "a directory the guest turns into a file"}},
	// runtime/pprof's timers on the threads' CPU clocks: program timers.
	// (The profile alone: the clock checks' time bounds fail on a loaded host.)
	{name: "cpuprof", flags: []string{"-cores", "2"}, prog: "cpuprof", args: []string{"profile"}},
	// UIO interrupts moved between CPUs: IRQ affinity, IRQ enables (PLIC).
	{name: "uioirq", flags: []string{"-cores", "4", "-device", "edu"}, prog: "uioirq"},
	// The syscall fuzzer (TestBoot's fuzz case): odd arguments on odd
	// paths, with overflow checks on (a huge utimensat time once overflowed).
	{name: "fuzz", flags: []string{"-cores", "4"}, prog: "fuzz", args: []string{"1", "20000", "8"}},
	{name: "procfs", flags: []string{"-cores", "4", "-env", "PROCFS_MARK=yes"}, prog: "procfs", args: []string{"one", "two words"}},
	{name: "files", flags: []string{"-cores", "4"}, prog: "files"},
	{name: "epollsem", flags: []string{"-cores", "2"}, prog: "epollsem"},
	{name: "filelocks", flags: []string{"-cores", "2"}, prog: "filelocks"},
}

// checkedUnreachable: classes an architecture's kernel never takes, and why.
var checkedUnreachable = map[string]map[string]string{
	"arm64": {"IRQ enables": "the GIC has set-enable and clear-enable registers: no read-modify-write of an enable word to guard (the PLIC's lock, riscv64 only)"},
}

// lockReport is the "locks" member of a checked kernel's statistics line.
type lockReport struct {
	Classes int      `json:"classes"`
	Taken   []string `json:"taken"`
	Never   []string `json:"never"`
}

func parseLockReport(out string) (lockReport, error) {
	i := strings.LastIndex(out, kstats.Prefix)
	if i < 0 {
		return lockReport{}, fmt.Errorf("no statistics line (%s)", strings.TrimSpace(kstats.Prefix))
	}
	line, _, _ := strings.Cut(out[i+len(kstats.Prefix):], "\n")
	var st struct {
		Locks *lockReport `json:"locks"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(line)), &st); err != nil {
		return lockReport{}, fmt.Errorf("the statistics line: %v", err)
	}
	r := st.Locks
	switch {
	case r == nil:
		return lockReport{}, fmt.Errorf("the statistics name no lock classes: not a checked kernel?")
	case len(r.Taken)+len(r.Never) != r.Classes:
		return *r, fmt.Errorf("the statistics' locks: %d taken and %d never, of %d classes", len(r.Taken), len(r.Never), r.Classes)
	}
	return *r, nil
}

// classUnion collects the classes the boots of one architecture took.
type classUnion struct {
	mu    sync.Mutex
	all   []string // every class, in order (from the first report)
	taken map[string]bool
}

func (u *classUnion) add(r lockReport) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.all == nil {
		u.all = append(slices.Clone(r.Taken), r.Never...)
		u.taken = map[string]bool{}
	}
	for _, c := range r.Taken {
		u.taken[c] = true
	}
}

// missing is what no boot took, less the unreachable classes; wrong is
// an "unreachable" class that was taken after all, or one that is no class.
func (u *classUnion) check(unreachable map[string]string) (missing, wrong []string) {
	for _, c := range u.all {
		if _, skip := unreachable[c]; !skip && !u.taken[c] {
			missing = append(missing, c)
		}
	}
	for c := range unreachable {
		if u.taken[c] || !slices.Contains(u.all, c) {
			wrong = append(wrong, c)
		}
	}
	return missing, wrong
}

func TestCheckedKernel(t *testing.T) { parallelArches(t, testCheckedKernel) }

func testCheckedKernel(t *testing.T, a *arch) {
	t.Parallel()
	kernel := checkedKernel(t, a)
	var u classUnion
	t.Run("boot", func(t *testing.T) {
		for _, b := range checkedBoots {
			t.Run(b.name, func(t *testing.T) {
				t.Parallel()
				u.add(bootChecked(t, a, kernel, b))
			})
		}
		// The serial console's input (console input) is read only by a
		// program booted from an image, with no gometal in between.
		t.Run("image", func(t *testing.T) {
			t.Parallel()
			u.add(bootCheckedImage(t, a, kernel))
		})
	})
	if t.Failed() {
		t.Fatal("a boot failed: which classes were taken is not known")
	}
	missing, wrong := u.check(checkedUnreachable[a.name])
	if len(wrong) > 0 {
		t.Errorf("classes listed as never taken on %s were taken, or are no class: %s (update checkedUnreachable)", a.name, strings.Join(wrong, ", "))
	}
	if len(missing) > 0 {
		t.Fatalf("no checked boot on %s took these lock classes: %s\nadd a program that takes them to checkedBoots (or, if %s can never take one, say why in checkedUnreachable)",
			a.name, strings.Join(missing, ", "), a.name)
	}
	t.Logf("%s: %d of %d lock classes taken by %d boots", a.name, len(u.taken), len(u.all), len(checkedBoots)+1)
}

// checkedKernel is a's checked kernel: GOMETAL_KERNEL_CHECKED (riscv64) or
// GOMETAL_KERNEL_CHECKED_ARM64 (make test builds them: make kernel-checked),
// else built here from the checkout.
func checkedKernel(t *testing.T, a *arch) string {
	env := strings.Replace(a.env, "GOMETAL_KERNEL", "GOMETAL_KERNEL_CHECKED", 1)
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", env, err)
		}
		return p
	}
	t.Logf("%s is not set: building the checked kernel", env)
	p, err := kernelimage.CargoBuildProfile(filepath.Join(modRoot, "kernel"), a.name, kernelimage.ProfileChecked, nil)
	if err != nil {
		t.Fatalf("building the checked %s kernel: %v", a.name, err)
	}
	return p
}

// bootChecked boots b on the checked kernel with -kernel-args stats; the
// program must pass and the kernel report the classes it took.
func bootChecked(t *testing.T, a *arch, kernel string, b checkedBoot) lockReport {
	args := []string{"run", "-kernel", kernel, "-kernel-args", "stats", "-timeout", fmt.Sprintf("%ds", int(guestTimeout.Seconds()))}
	args = append(args, b.flags...)
	if b.share != nil {
		share := filepath.Join(t.TempDir(), "share")
		writeFiles(t, share, b.share)
		args = append(args, "-mount", share+":/data")
	}
	args = append(append(args, a.prog(b.prog)), b.args...)
	bootSem <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), hostTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, gometal, args...)
	cmd.Dir = modRoot
	cmd.Env = gometalEnv()
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	status, err := exitStatus(cmd.Run())
	<-bootSem
	problem := ""
	r, perr := parseLockReport(stderr.String())
	switch {
	case err != nil:
		problem = "running gometal: " + err.Error()
	case status != 0 || !hasLine(stdout.String(), "PASS "+b.prog):
		// A lock-order panic is a "gometal: kernel panic" line, status 101.
		problem = fmt.Sprintf("exit status %d, want 0 and a line PASS %s", status, b.prog)
	case perr != nil:
		problem = perr.Error()
	}
	if problem != "" {
		t.Fatalf("%s on the checked kernel: %s\ncommand: %s\nstdout:\n%s\nstderr (program and kernel):\n%s", b.name, problem,
			shellQuote(append([]string{gometal}, args...)), tail(stdout.String(), 40), tail(stderr.String(), tailLines))
	}
	return r
}

// bootCheckedImage boots tests/progs/board from an image of the checked
// kernel with no gometal in between, its stdin typed on the serial
// console (as TestImage and TestImageArm64 do).
func bootCheckedImage(t *testing.T, a *arch, kernel string) lockReport {
	img := filepath.Join(t.TempDir(), "app.img")
	flags := []string{"-kernel", kernel, "-kernel-args", "stats"}
	cfg := qemu.Config{Machine: a.machine, SMP: 2, Memory: "256M", Kernel: img}
	if a == arm64 {
		buildArm64Image(t, img, flags, "2", "3", "yes", "typed\n")
		cfg.Append = "semihosting" // the exit status through semihosting
	} else {
		buildImage(t, img, flags, "2", "3", "yes", "typed\n")
	}
	out, status := bootQEMU(t, cfg, "typed\n\x04")
	expect(t, out, status, 3, "PASS board (NumCPU=2, exiting with 3)")
	r, err := parseLockReport(out)
	if err != nil {
		t.Fatalf("image on the checked kernel: %v\n%s", err, tail(out, tailLines))
	}
	return r
}
