package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// TestQuickSubset is the part of the conformance run that `make test`
// does: a handful of small packages on gometal (no Linux reference),
// failing if any of their tests fails. It needs QEMU and the kernel
// (GOMETAL_KERNEL, which the Makefile sets).
func TestQuickSubset(t *testing.T) { quickSubset(t, machine.RISCV64) }

// TestQuickSubsetArm64 is the same on arm64 (linux/arm64 test binaries on
// gometal's arm64 kernel: $GOMETAL_KERNEL_ARM64, else built from the
// checkout, else embedded); about 15 s on the 2-core host.
func TestQuickSubsetArm64(t *testing.T) { quickSubset(t, machine.ARM64) }

func quickSubset(t *testing.T, arch *machine.Arch) {
	if testing.Short() {
		t.Skip("boots QEMU")
	}
	if os.Getenv("GOMETAL_KERNEL") == "" {
		t.Skip("GOMETAL_KERNEL is not set (make test sets it)")
	}
	if _, err := qemu.Find("", arch); err != nil {
		t.Skip(err)
	}
	skips, err := ReadSkipFile("skip.txt")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	bin, err := gometalBinary("", work)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Gometal: bin, Cores: 4, Timeout: 5 * time.Minute, Short: true, WorkDir: work, Skips: skips, Arch: arch}
	for _, pkg := range QuickPackages {
		t.Run(strings.ReplaceAll(pkg, "/", "_"), func(t *testing.T) {
			r := RunPackage(context.Background(), cfg, pkg)
			if !r.BuildOK {
				t.Fatalf("build: %s", r.BuildEr)
			}
			g := r.Gometal
			t.Logf("%s: %d pass, %d fail, %d skip in %s", g.Status, g.Pass, g.Fail, g.Skip, g.Wall)
			if g.Status != "ok" || g.Pass == 0 {
				t.Errorf("%s on gometal: %s (exit %d), failed: %v\n%s", pkg, g.Status, g.ExitCode, g.Failed, g.Tail)
			}
		})
	}
}

func TestParseSkips(t *testing.T) {
	l, err := ParseSkips(strings.NewReader("# c\n\nos TestA needs fork\nos Test(B|C) needs exec too\nio TestD x\n"), "s")
	if err != nil {
		t.Fatal(err)
	}
	pat, applied := l.Pattern("os")
	if pat != "^(?:TestA|Test(B|C))$" || len(applied) != 2 || l[0].Reason != "needs fork" {
		t.Errorf("Pattern(os) = %q, %q; %+v", pat, applied, l)
	}
	if pat, _ := l.Pattern("fmt"); pat != "" {
		t.Errorf("Pattern(fmt) = %q", pat)
	}
	for _, bad := range []string{"os TestA", "os TestA/sub reason", "os Test( reason"} {
		if _, err := ParseSkips(strings.NewReader(bad), "s"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := ReadSkipFile("skip.txt"); err != nil {
		t.Errorf("skip.txt: %v", err)
	}
}

// test2json-framed output of a run: TestA passes, TestB fails in a
// subtest, TestC is skipped, TestD never finishes (the program crashed).
// (The framing is what a real test binary writes with -test.v=test2json.)
const sample = "\x16=== RUN   TestA\n\x16--- PASS: TestA (0.00s)\n" +
	"\x16=== RUN   TestB\n\x16=== RUN   TestB/sub\n    b_test.go:9: open testdata/x: no such file\n" +
	"\x16--- FAIL: TestB/sub (0.00s)\n\x16=== NAME  TestB\n\x16--- FAIL: TestB (0.00s)\n" +
	"\x16=== RUN   TestC\n    c_test.go:3: short\n\x16--- SKIP: TestC (0.00s)\n" +
	"\x16=== RUN   TestD\nfatal error: boom\n"

func TestParseAndCompare(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	var g, l Side
	parse(&g, "p", []byte(sample))
	if g.Pass != 1 || g.Fail != 2 || g.Skip != 1 {
		t.Errorf("counts %d/%d/%d; want 1/2/1", g.Pass, g.Fail, g.Skip)
	}
	if strings.Join(g.Failed, ",") != "TestB,TestB/sub,TestD" {
		t.Errorf("failed %v", g.Failed)
	}
	parse(&l, "p", []byte("\x16=== RUN   TestA\n\x16--- PASS: TestA (0.00s)\n\x16=== RUN   TestB\n\x16--- PASS: TestB (0.00s)\n"+
		"\x16=== RUN   TestC\n\x16--- SKIP: TestC (0.00s)\n\x16=== RUN   TestD\n\x16--- PASS: TestD (0.00s)\n\x16PASS\n"))
	g.Ran, l.Ran, g.Status, l.Status = true, true, "FAIL", "ok"
	r := &Result{Pkg: "p", BuildOK: true, Gometal: g, Linux: l}
	compare(r)
	if len(r.Diffs) != 3 || r.Diffs[1].Test != "TestB/sub" || r.Diffs[1].Linux != "absent" ||
		!strings.Contains(r.Diffs[1].Excerpt, "no such file") || r.Diffs[2].Gometal != "unfinished" {
		t.Errorf("diffs %+v", r.Diffs)
	}
	if r.Agrees() || !strings.Contains(r.Reason, "TestB (gometal fail, linux pass)") {
		t.Errorf("reason %q", r.Reason)
	}
}

func TestWriteGenerated(t *testing.T) {
	p := t.TempDir() + "/c.md"
	os.WriteFile(p, []byte("# T\n\nhand\n\n"+beginMark+"\nold\n"+endMark+"\n\n## Gaps\n"), 0o644)
	if err := writeGenerated(p, "new\n"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if want := "# T\n\nhand\n\n" + beginMark + "\nnew\n" + endMark + "\n\n## Gaps\n"; string(b) != want {
		t.Errorf("got %q", b)
	}
}
