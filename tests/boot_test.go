// Package tests holds gometal's integration tests: real Go programs, built
// with the stock toolchain for linux/riscv64 and linux/arm64, booted on the
// gometal kernel in qemu-system-riscv64 and qemu-system-aarch64 through the
// gometal CLI, at 1 and 4 harts; on riscv64 the SMP cases at 1, 2 and 4
// harts under every placement policy (-sched). TestBoot boots the cases on
// riscv64, TestBootArm64 on arm64; the other tests run once per
// architecture (arches_test.go).
//
//	go test ./tests/                  # everything (several minutes)
//	go test ./tests/ -run 'TestBoot/timers'
//	go test ./tests/ -run 'TestBootArm64/timers'
//	go test ./tests/ -run 'TestStdio.*/arm64'
//	go test ./tests/ -run TestBadInput
//	go test ./tests/ -run 'TestBoot/arith/smp4/random'
//
// Environment:
//
//	GOMETAL_SKIP_STDIN=1      skip the stdin case (console input can be flaky)
//	GOMETAL_TEST_PARALLEL=N   QEMUs at once (default 2)
//	GOMETAL_TEST_VERBOSE=1    log the console of passing boots too
//	GOMETAL_TEST_CLI=PATH     use this gometal binary instead of building ./cmd/gometal
//	GOMETAL_KERNEL=PATH       boot this kernel instead of building kernel/ with cargo
//	GOMETAL_KERNEL_ARM64=PATH the same for arm64
//	GOMETAL_TEST_ARM64=all    TestBootArm64's SMP cases under every policy too
//	GOMETAL_TEST_POLICIES=a,b run the SMP cases under these policies only
package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gometal.dev/gometal/internal/gobuild"
	"gometal.dev/gometal/internal/kstats"
	"gometal.dev/gometal/internal/machine"
)

const (
	guestTimeout = 120 * time.Second             // gometal -timeout
	hostTimeout  = guestTimeout + 30*time.Second // our own deadline on gometal
	buildTimeout = 10 * time.Minute              // building the CLI and programs
	tailLines    = 100                           // console lines shown on failure
	maxHangs     = 3                             // after this many timeouts, stop booting
)

// testMachine is what every boot runs on: the machine gometal run picks
// for the programs (internal/machine).
var testMachine = machine.Default()

var (
	modRoot string // module root (where go.mod is)
	workDir string // temporary directory for built binaries
	gometal string // the CLI binary
	hostBin string // a host-architecture Go binary, for TestBadInput

	bootSem chan struct{} // limits concurrent QEMUs
	hangs   atomic.Int32  // boots that ran into a timeout

	summaryMu sync.Mutex
	summary   []bootResult
)

// smpCores are the hart counts the SMP cases run at, under every policy.
// (The other cases run at smp1 and smp4 with the kernel's default policy.)
var smpCores = []int{1, 2, 4}

type bootResult struct {
	name   string
	status int
	dur    time.Duration
	ok     bool
}

func TestMain(m *testing.M) {
	if err := setup(); err != nil {
		fmt.Fprintf(os.Stderr, "tests: setup failed: %v\n", err)
		if workDir != "" {
			os.RemoveAll(workDir)
		}
		os.Exit(1)
	}
	code := m.Run()
	printSummary()
	os.RemoveAll(workDir)
	os.Exit(code)
}

func setup() error {
	root, err := gobuild.ModuleRoot()
	if err != nil {
		return err
	}
	modRoot = root

	n := 2
	if s := os.Getenv("GOMETAL_TEST_PARALLEL"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			n = v
		}
	}
	bootSem = make(chan struct{}, n)

	workDir, err = os.MkdirTemp("", "gometal-tests-")
	if err != nil {
		return err
	}
	gometal = filepath.Join(workDir, "gometal")
	hostBin = filepath.Join(workDir, "hostbin")

	cliBuild := []string{"build", "-o", gometal, "./cmd/gometal"}
	if p := os.Getenv("GOMETAL_TEST_CLI"); p != "" {
		if gometal, err = filepath.Abs(p); err != nil {
			return err
		}
		cliBuild = []string{"version"} // nothing to build
	}
	builds := []gobuild.Job{
		{What: "the gometal CLI", Args: cliBuild},
		{What: "a host binary", Env: []string{"GOOS=" + runtime.GOOS, "GOARCH=" + runtime.GOARCH},
			Args: []string{"build", "-o", hostBin, "./tests/progs/hello"}},
	}
	for _, a := range arches {
		builds = append(builds, a.buildJobs(workDir)...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	// Resolve (and if need be build, with cargo) the kernels once, the way
	// the CLI does, and hand them to every boot (gometalEnv): no boot then
	// waits on cargo, and a kernel that does not build fails each test once,
	// clearly. Find searches up from the working directory (tests/, inside
	// the checkout) unless GOMETAL_KERNEL(_ARM64) is set.
	return gobuild.RunAll(ctx, modRoot, builds, func() error {
		for _, a := range arches {
			if a.find(); a.err != nil {
				fmt.Fprintf(os.Stderr, "tests: cannot boot %s: %v (or `make deps`)\n", a.name, a.err)
			}
		}
		return nil
	})
}

func printSummary() {
	summaryMu.Lock()
	defer summaryMu.Unlock()
	if len(summary) == 0 {
		return
	}
	sort.Slice(summary, func(i, j int) bool { return summary[i].name < summary[j].name })
	pass := 0
	var total time.Duration
	fmt.Println("\ngometal boot summary:")
	for _, r := range summary {
		verdict := "FAIL"
		if r.ok {
			verdict = "ok  "
			pass++
		}
		total += r.dur
		fmt.Printf("  %s %-32s exit %-4d %6.1fs\n", verdict, r.name, r.status, r.dur.Seconds())
	}
	fmt.Printf("  %d/%d boots passed, %.1fs of boot time (%.1fs per boot)\n",
		pass, len(summary), total.Seconds(), total.Seconds()/float64(len(summary)))
}

func TestBoot(t *testing.T) { bootCases(t, riscv64, bootCase.runs) }

// bootCases boots every case on a, each run that runs(case) lists, as
// parallel subtests named case/run, at most bootSem's count at a time.
func bootCases(t *testing.T, a *arch, runs func(bootCase) []bootRun) {
	if a.err != nil {
		t.Fatalf("cannot boot %s: %v", a.name, a.err)
	}
	t.Logf("kernel: %s", a.kernel)
	for _, c := range cases() {
		for _, r := range runs(c) {
			t.Run(c.name+"/"+r.name(), func(t *testing.T) {
				if c.skipEnv != "" && os.Getenv(c.skipEnv) != "" {
					t.Skipf("skipped: %s is set", c.skipEnv)
				}
				if why, ok := c.notOn[a.name]; ok {
					t.Skipf("not on %s: %s", a.name, why)
				}
				t.Parallel()
				bootSem <- struct{}{}
				defer func() { <-bootSem }()
				// A kernel that hangs every boot would otherwise cost 120 s
				// per case and run past go test's own 10-minute limit.
				if n := hangs.Load(); n >= maxHangs {
					t.Fatalf("not booted: %d earlier boots hung until the timeout; fix those first", n)
				}
				runBoot(t, c, r, a)
			})
		}
	}
}

func runBoot(t *testing.T, c bootCase, r bootRun, a *arch) {
	args := runArgs(c, r, a)
	ctx, cancel := context.WithTimeout(context.Background(), hostTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, gometal, args...)
	cmd.Dir = modRoot
	cmd.Env = gometalEnv()
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if c.stdin != "" {
		cmd.Stdin = strings.NewReader(c.stdin)
	}
	start := time.Now()
	err := cmd.Run()
	dur := time.Since(start)

	status, runErr := exitStatus(err)
	if ctx.Err() != nil || status == 124 {
		hangs.Add(1)
	}
	problems := bootProblems(c, r, stdout.String(), stderr.String(), status, runErr, ctx.Err())

	summaryMu.Lock()
	summary = append(summary, bootResult{name: a.summaryPrefix() + c.name + "/" + r.name(), status: status, dur: dur, ok: len(problems) == 0})
	summaryMu.Unlock()

	if len(problems) > 0 {
		t.Errorf("%s\ncommand: %s\nexit status: %d, after %.1fs\nstdout (last %d lines):\n%s\nstderr (program and kernel):\n%s",
			strings.Join(problems, "\n"), shellQuote(append([]string{gometal}, args...)), status,
			dur.Seconds(), tailLines, tail(stdout.String(), tailLines), tail(stderr.String(), tailLines))
		return
	}
	t.Logf("exit %d in %.1fs", status, dur.Seconds())
	if os.Getenv("GOMETAL_TEST_VERBOSE") != "" {
		t.Logf("console:\n%s", tail(stdout.String()+stderr.String(), tailLines))
	}
}

// runArgs is the gometal run command line of one boot of case c on a.
func runArgs(c bootCase, r bootRun, a *arch) []string {
	cores := r.cores
	bin := a.prog(c.prog)
	if c.example {
		bin = a.example(c.prog)
	}
	args := []string{"run", "-cores", strconv.Itoa(cores), "-timeout", fmt.Sprintf("%ds", int(guestTimeout.Seconds()))}
	if c.mem == memMinimum {
		args = append(args, "-mem", machine.FormatSize(a.machine.MinMemory))
	} else if c.mem != "" {
		args = append(args, "-mem", c.mem)
	}
	kargs := c.kargs
	if r.sched != "" {
		// stats: the kernel names the policy it used and lists every hart.
		args = append(args, "-sched", r.sched)
		kargs = strings.TrimSpace(kargs + " stats")
	}
	if kargs != "" {
		args = append(args, "-kernel-args", kargs)
	}
	for _, e := range c.env {
		args = append(args, "-env", e)
	}
	for _, d := range c.devices {
		args = append(args, "-device", d)
	}
	for _, a := range c.add {
		host, guest, _ := strings.Cut(a, ":")
		args = append(args, "-add", filepath.Join(modRoot, host)+":"+guest)
	}
	args = append(args, bin)
	if c.args != nil {
		args = append(args, c.args(cores)...)
	}
	return args
}

// bootProblems is what is wrong with one boot of case c that printed
// stdout and stderr and ended with status (runErr: gometal did not run;
// ctxErr: it was killed at hostTimeout); none if it passed.
func bootProblems(c bootCase, r bootRun, stdout, stderr string, status int, runErr, ctxErr error) []string {
	// The program's stdout and stderr are separate, and the kernel's own
	// messages (statistics, the fault and exit lines) go to gometal's
	// stderr: expected text may be in either, PASS lines are on stdout.
	out := stdout + stderr
	var problems []string
	if strings.Contains(stdout, "gometal: ") {
		problems = append(problems, "kernel text in the program's stdout")
	}
	switch {
	case ctxErr != nil:
		problems = append(problems, fmt.Sprintf("gometal did not finish within %v (killed)", hostTimeout))
	case runErr != nil:
		problems = append(problems, fmt.Sprintf("running gometal: %v", runErr))
	case status != c.status:
		p := fmt.Sprintf("exit status %d, want %d", status, c.status)
		if status == 124 {
			p += " (124: the guest hit gometal's -timeout " + guestTimeout.String() + "; a hang?)"
		}
		problems = append(problems, p)
	}
	want := c.want
	if !c.noPass {
		want = append(want[:len(want):len(want)], "PASS "+c.name)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			problems = append(problems, fmt.Sprintf("output lacks %q", w))
		}
	}
	for _, w := range c.once {
		if n := strings.Count(out, w); n != 1 {
			problems = append(problems, fmt.Sprintf("output has %q %d times, want once", w, n))
		}
	}
	if !c.noPass && !hasLine(stdout, "PASS "+c.name) {
		problems = append(problems, fmt.Sprintf("no line that is exactly %q", "PASS "+c.name))
	}
	if r.sched != "" && ctxErr == nil && status == c.status {
		problems = append(problems, checkStats(out, r)...)
	}
	if i := strings.Index(out, "FAIL "+c.name); i >= 0 {
		line, _, _ := strings.Cut(out[i:], "\n")
		problems = append(problems, "program reported: "+strings.TrimSpace(line))
	}
	return problems
}

// checkStats checks the kernel's statistics (-kernel-args stats) after a
// boot under policy r.sched: they name that policy and list every hart once,
// each online.
func checkStats(out string, r bootRun) []string {
	st, err := kstats.Parse(out)
	if err != nil {
		return []string{"stats: " + err.Error()}
	}
	return st.Check(r.sched, r.cores)
}

// TestSchedPolicies checks that the CLI's -sched accepts the kernel's
// policies: its error for an unknown one lists them.
func TestSchedPolicies(t *testing.T) { forArches(t, testSchedPolicies) }

func testSchedPolicies(t *testing.T, a *arch) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gometal, "run", "-sched", "no-such-policy", a.prog("hello"))
	cmd.Dir = modRoot
	cmd.Env = gometalEnv()
	out, _ := cmd.CombinedOutput()
	want := "want one of " + strings.Join(kstats.SchedPolicies, ", ")
	if !strings.Contains(string(out), want) {
		t.Errorf("gometal run -sched no-such-policy: output lacks %q:\n%s", want, out)
	}
}

// TestTestdataMatchesReadfile keeps tests/testdata/hello.txt and the content
// the readfile program expects in step.
func TestTestdataMatchesReadfile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(modRoot, "tests", "testdata", "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(modRoot, "tests", "progs", "readfile", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "const want = " + strconv.Quote(string(data)); !strings.Contains(string(src), want) {
		t.Errorf("tests/progs/readfile/main.go must contain\n\t%s\nto match tests/testdata/hello.txt", want)
	}
}

// exitStatus returns the process's exit status, or an error if it did not
// run or was killed by a signal.
func exitStatus(err error) (int, error) {
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if code := ee.ExitCode(); code >= 0 {
			return code, nil
		}
		return -1, fmt.Errorf("gometal killed: %v", ee)
	}
	return -1, err
}

func hasLine(out, line string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimRight(l, "\r ") == line {
			return true
		}
	}
	return false
}

func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "\t(empty)"
	}
	lines := strings.Split(s, "\n")
	skipped := 0
	if len(lines) > n {
		skipped = len(lines) - n
		lines = lines[skipped:]
	}
	var b strings.Builder
	if skipped > 0 {
		fmt.Fprintf(&b, "\t[... %d earlier lines ...]\n", skipped)
	}
	for _, l := range lines {
		b.WriteString("\t| " + strings.TrimRight(l, "\r") + "\n")
	}
	return b.String()
}

func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@") == "" {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
