package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"gometal.dev/gometal/internal/machine"
)

// Config is what one conformance run needs.
type Config struct {
	Gometal   string        // the gometal CLI binary
	QEMUUser  string        // qemu-riscv64, the Linux reference ("" skips it)
	Cores     int           // harts for gometal
	Timeout   time.Duration // per package and side: -test.timeout
	Short     bool          // -test.short on both sides
	WorkDir   string        // test binaries and raw logs
	Skips     SkipList
	ExecFlags []string // extra gometal exec flags
	Reuse     bool     // use test binaries already in WorkDir (from an earlier run)
	// Arch is what the test binaries are built for; nil: the default
	// machine's (riscv64).
	Arch *machine.Arch
}

// arch is c.Arch, or the default machine's.
func (c *Config) arch() *machine.Arch {
	if c.Arch == nil {
		return machine.Default().Arch
	}
	return c.Arch
}

// QEMUUserFor names the user-mode QEMU that runs a's Linux binaries on
// the host (Debian's qemu-user): qemu-riscv64, qemu-aarch64.
func QEMUUserFor(a *machine.Arch) string {
	if a == machine.ARM64 {
		return "qemu-aarch64"
	}
	return "qemu-" + a.Name
}

// Side is how one package did on one system.
type Side struct {
	Ran      bool          `json:"ran"`
	Status   string        `json:"status"` // ok, FAIL, timeout, crash, error
	Pass     int           `json:"pass"`   // top-level tests
	Fail     int           `json:"fail"`
	Skip     int           `json:"skip"`
	Wall     time.Duration `json:"wall"`
	ExitCode int           `json:"exit_code"`
	Failed   []string      `json:"failed,omitempty"` // tests (and subtests) that failed or never finished
	Tail     string        `json:"tail,omitempty"`   // last output lines, for crashes
	Notes    []string      `json:"notes,omitempty"`  // kernel messages and panics from the output
	results  map[string]testResult
}

type testResult struct {
	action string   // pass, fail, skip, run (unfinished)
	output []string // its output lines
}

// Diff is one test whose outcome differs between the systems.
type Diff struct {
	Test    string `json:"test"`
	Gometal string `json:"gometal"`
	Linux   string `json:"linux"`
	Excerpt string `json:"excerpt,omitempty"`
}

// Result is one package's row.
type Result struct {
	Pkg     string   `json:"pkg"`
	Skipped []string `json:"skipped,omitempty"` // skip-list entries applied
	BuildOK bool     `json:"build_ok"`
	BuildEr string   `json:"build_error,omitempty"`
	Gometal Side     `json:"gometal"`
	Linux   Side     `json:"linux"`
	Diffs   []Diff   `json:"diffs,omitempty"`
	Reason  string   `json:"reason,omitempty"` // one line: why gometal differs
}

// Agrees says whether gometal did what Linux did (or passed, with no reference).
func (r *Result) Agrees() bool {
	if !r.BuildOK {
		return false
	}
	if !r.Linux.Ran {
		return r.Gometal.Status == "ok"
	}
	return r.Gometal.Status == r.Linux.Status && len(r.Diffs) == 0
}

func safeName(pkg string) string { return strings.ReplaceAll(pkg, "/", "_") }

// build compiles pkg's test binary for cfg's architecture (linux/riscv64
// by default) and returns it and the package's source directory.
func build(ctx context.Context, cfg *Config, pkg string) (bin, dir string, err error) {
	env := append(os.Environ(), cfg.arch().BuildEnv()...)
	out, err := command(ctx, env, "", "go", "list", "-f", "{{.Dir}}", pkg).Output()
	if err != nil {
		return "", "", fmt.Errorf("go list %s: %v", pkg, err)
	}
	dir = strings.TrimSpace(string(out))
	bin = filepath.Join(cfg.WorkDir, safeName(pkg)+".test")
	if st, err := os.Stat(bin); cfg.Reuse && err == nil && st.Mode().IsRegular() {
		return bin, dir, nil
	}
	var stderr bytes.Buffer
	c := command(ctx, env, "", "go", "test", "-c", "-o", bin, pkg)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		return "", "", fmt.Errorf("go test -c %s: %v: %s", pkg, err, lastLines(stderr.String(), 5))
	}
	if _, err := os.Stat(bin); err != nil {
		return "", "", fmt.Errorf("go test -c %s: no test binary (no tests?)", pkg)
	}
	return bin, dir, nil
}

func command(ctx context.Context, env []string, dir, name string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, name, args...)
	c.Env, c.Dir = env, dir
	c.WaitDelay = 10 * time.Second
	return c
}

// testArgs are the arguments both systems get.
func testArgs(cfg *Config, skip string) []string {
	args := []string{"-test.paniconexit0", "-test.v=test2json", "-test.count=1",
		"-test.timeout=" + cfg.Timeout.String()}
	if cfg.Short {
		args = append(args, "-test.short")
	}
	if skip != "" {
		args = append(args, "-test.skip="+skip)
	}
	return args
}

// runSide runs argv in dir, keeps the raw output in logPath and parses it.
func runSide(ctx context.Context, pkg, dir, logPath string, hardLimit time.Duration, argv []string) Side {
	side := Side{Ran: true}
	ctx, cancel := context.WithTimeout(ctx, hardLimit)
	defer cancel()
	var out bytes.Buffer
	c := command(ctx, os.Environ(), dir, argv[0], argv[1:]...)
	c.Stdout, c.Stderr = &out, &out
	start := time.Now()
	err := c.Run()
	side.Wall = time.Since(start).Round(100 * time.Millisecond)
	os.WriteFile(logPath, out.Bytes(), 0o644)
	if ee, ok := err.(*exec.ExitError); ok {
		side.ExitCode = ee.ExitCode()
	} else if err != nil {
		side.ExitCode = -1
	}
	parse(&side, pkg, out.Bytes())
	switch {
	case ctx.Err() != nil:
		side.Status = "timeout"
	case err == nil && side.Fail == 0:
		side.Status = "ok"
	case side.ExitCode == 124:
		side.Status = "timeout"
	case err != nil && side.Fail == 0 && len(side.Failed) == 0:
		side.Status = "crash"
	default:
		side.Status = "FAIL"
	}
	side.Notes = notes(plain(out.String()))
	if side.Status != "ok" {
		side.Tail = lastLines(plain(out.String()), 8)
	}
	return side
}

// notes picks the lines that explain a crash: the kernel's own messages
// (other than unsupported-syscall notices) and the first panic or fatal
// error.
func notes(out string) []string {
	var ns []string
	seen := map[string]bool{}
	panics := 0
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		kernel := strings.HasPrefix(l, "gometal:") && !strings.Contains(l, "unsupported syscall") && !strings.Contains(l, "tried to start a process")
		crash := strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "*** Test killed")
		if crash && panics < 1 {
			panics++
		} else if !kernel {
			continue
		}
		if !seen[l] {
			seen[l] = true
			ns = append(ns, l)
		}
	}
	return first(ns, 4)
}

// parse turns -test.v=test2json output into per-test results with
// `go tool test2json`.
func parse(side *Side, pkg string, raw []byte) {
	side.results = map[string]testResult{}
	c := exec.Command("go", "tool", "test2json", "-p", pkg)
	c.Stdin = bytes.NewReader(raw)
	out, err := c.Output()
	if err != nil && len(out) == 0 {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var ev struct {
			Action, Test, Output string
		}
		if dec.Decode(&ev) != nil {
			break
		}
		if ev.Test == "" {
			continue
		}
		r := side.results[ev.Test]
		switch ev.Action {
		case "run":
			r.action = "run"
		case "pass", "fail", "skip":
			r.action = ev.Action
		case "output":
			if len(r.output) < 200 {
				r.output = append(r.output, strings.TrimRight(ev.Output, "\n"))
			}
		}
		side.results[ev.Test] = r
	}
	names := make([]string, 0, len(side.results))
	for n := range side.results {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r := side.results[n]
		top := !strings.Contains(n, "/")
		switch r.action {
		case "pass":
			if top {
				side.Pass++
			}
		case "skip":
			if top {
				side.Skip++
			}
		case "fail", "run":
			if top {
				side.Fail++
			}
			side.Failed = append(side.Failed, n)
		}
	}
}

// compare fills r.Diffs and r.Reason.
func compare(r *Result) {
	g, l := r.Gometal.results, r.Linux.results
	names := map[string]bool{}
	for n := range g {
		names[n] = true
	}
	for n := range l {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		ga, la := actionOf(g, n), actionOf(l, n)
		if !r.Linux.Ran {
			la = "-"
			if ga != "fail" && ga != "unfinished" {
				continue
			}
		} else if ga == la {
			continue
		}
		// A subtest of a test that differs is noise unless it is what failed.
		if i := strings.LastIndex(n, "/"); i >= 0 && ga != "fail" && la != "fail" {
			continue
		}
		r.Diffs = append(r.Diffs, Diff{Test: n, Gometal: ga, Linux: la, Excerpt: excerpt(g[n].output)})
	}
	sort.SliceStable(r.Diffs, func(i, j int) bool { return rank(r.Diffs[i]) < rank(r.Diffs[j]) })
	switch {
	case !r.BuildOK:
		r.Reason = "build failed: " + r.BuildEr
	case r.Gometal.Status == "ok" && r.Agrees():
	case len(r.Gometal.Notes) > 0 && r.Gometal.Status != "ok" && !(r.Linux.Ran && r.Linux.Status == r.Gometal.Status):
		var unfinished []string
		for _, d := range r.Diffs {
			if d.Gometal == "unfinished" {
				unfinished = append(unfinished, d.Test)
			}
		}
		r.Reason = strings.Join(r.Gometal.Notes, " / ")
		if len(unfinished) > 0 {
			r.Reason = "stopped in " + strings.Join(first(unfinished, 3), ", ") + ": " + r.Reason
		}
		r.Reason = oneLine(r.Reason)
	case r.Gometal.Status == "timeout":
		r.Reason = "timed out; running: " + strings.Join(first(r.Gometal.Failed, 3), ", ")
	case r.Gometal.Status == "crash" || (len(r.Diffs) == 0 && r.Gometal.Status != r.Linux.Status):
		r.Reason = fmt.Sprintf("exit %d: %s", r.Gometal.ExitCode, oneLine(r.Gometal.Tail))
	case len(r.Diffs) > 0:
		var parts []string
		for _, d := range first(r.Diffs, 3) {
			p := fmt.Sprintf("%s (gometal %s, linux %s)", d.Test, d.Gometal, d.Linux)
			if d.Excerpt != "" {
				p += ": " + d.Excerpt
			}
			parts = append(parts, p)
		}
		if len(r.Diffs) > 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(r.Diffs)-3))
		}
		r.Reason = strings.Join(parts, "; ")
	}
}

// rank orders differences so the informative ones (a failure on gometal)
// come before tests that merely never ran after a crash.
func rank(d Diff) int {
	switch d.Gometal {
	case "fail":
		return 0
	case "unfinished":
		return 1
	case "absent":
		return 3
	}
	return 2
}

func actionOf(m map[string]testResult, n string) string {
	r, ok := m[n]
	switch {
	case !ok:
		return "absent"
	case r.action == "run":
		return "unfinished"
	}
	return r.action
}

var noise = regexp.MustCompile(`^\s*(=== |--- |\s*$)`)

// excerpt picks the first meaningful output lines of a failing test.
func excerpt(lines []string) string {
	var keep []string
	for _, l := range lines {
		if noise.MatchString(l) {
			continue
		}
		keep = append(keep, strings.TrimSpace(l))
		if len(keep) == 2 {
			break
		}
	}
	s := strings.Join(keep, " / ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

func first[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// plain drops test2json's framing bytes from raw output.
func plain(s string) string { return strings.ReplaceAll(s, "\x16", "") }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = "..." + s[len(s)-197:]
	}
	return s
}

var gorootOnce struct {
	sync.Once
	dir string
}

// goroot is `go env GOROOT`.
func goroot() string {
	gorootOnce.Do(func() {
		out, _ := exec.Command("go", "env", "GOROOT").Output()
		gorootOnce.dir = strings.TrimSpace(string(out))
	})
	return gorootOnce.dir
}

// RunPackage builds pkg and runs its tests on gometal and on Linux.
func RunPackage(ctx context.Context, cfg *Config, pkg string) *Result {
	r := &Result{Pkg: pkg}
	bin, dir, err := build(ctx, cfg, pkg)
	if err != nil {
		r.BuildEr = oneLine(err.Error())
		compare(r)
		return r
	}
	r.BuildOK = true
	skip, applied := cfg.Skips.Pattern(pkg)
	r.Skipped = applied
	args := testArgs(cfg, skip)
	hard := cfg.Timeout + 3*time.Minute
	logBase := filepath.Join(cfg.WorkDir, safeName(pkg))
	// Packages that read $GOROOT/src/testdata (../../testdata) find it:
	// gometal exec shows the package's module, std ($GOROOT/src), at its
	// own path. Packed (-module pack), so that a test writing into its
	// package directory succeeds as under qemu-user, not EROFS.
	gm := append([]string{cfg.Gometal, "exec", "-cores", fmt.Sprint(cfg.Cores), "-module", "pack"}, cfg.ExecFlags...)
	gm = append(append(gm, bin), args...)
	r.Gometal = runSide(ctx, pkg, dir, logBase+".gometal.log", hard, gm)
	if cfg.QEMUUser != "" {
		r.Linux = runSide(ctx, pkg, dir, logBase+".linux.log", hard, append([]string{cfg.QEMUUser, bin}, args...))
	}
	compare(r)
	return r
}
