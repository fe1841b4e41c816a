package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocs is the check itself, on this tree (part of `make test`).
func TestDocs(t *testing.T) {
	probs, err := Run("../..", "allow.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Error(p)
	}
	if len(probs) > 0 {
		t.Log("fix the doc (or, for a name that is someone else's, see tools/doccheck/main.go)")
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		span  string
		kind  kind
		words string
	}{
		{"TrapFrame::set_ret", names, "TrapFrame set_ret"},
		{"set_linear_map_memory(ram)", names, "set_linear_map_memory"},
		{"PteFormat::page(pa, rights, memory)", names, "PteFormat page"},
		{"fs::context::FsContext", names, "fs context FsContext"},
		{"crate::sync::Lock", names, "sync Lock"},
		{"forArches", names, "forArches"},
		{"clock_gettime", names, "clock_gettime"},
		{"$GOMETAL_KERNEL_ARM64", names, "GOMETAL_KERNEL_ARM64"},
		{"println!", other, ""},
		{"uio.ErrNoDMA", names, "uio ErrNoDMA"},
		{"(*uio.Region).Read8", names, "uio Region Read8"},
		{"TestBootArm64/arm64/openflags", names, "TestBootArm64"},
		{"REALTIME(_COARSE)", other, ""},
		{"mkfs.vfat", other, ""},
		{"EFAULT", other, ""},
		{"stats", other, ""},
		{"-cores 4", other, ""},
		{"gometal run -cores 2 ./prog", other, ""},
		{"go1.26.8", other, ""},
		{"mm/uaccess.rs", file, "mm/uaccess.rs"},
		{"lockorder.rs", file, "lockorder.rs"},
		{"kernel/src/arch/<arch>/", file, "kernel/src/arch/*/"},
		{"arch/aarch64/", file, "arch/aarch64/"},
		{"tests/progs/*", file, "tests/progs/*"},
		{"/dev/uio0", other, ""},
		{"net/http", other, ""},
		{"../testdata", other, ""},
		{"linux/arm64", other, ""},
		{"https://example.org/x", other, ""},
	}
	for _, c := range cases {
		k, w := classify(c.span)
		if k != c.kind || strings.Join(w, " ") != c.words {
			t.Errorf("classify(%q) = %v %q; want %v %q", c.span, k, w, c.kind, c.words)
		}
	}
}

// TestCatches runs the check on a small tree with one mistake of each
// kind, so the checks are shown to fail, not only to pass.
func TestCatches(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("kernel/src/sched/wake.rs", "pub fn wake_thread(t: &Thread) {}\n")
	write("cmd/tool/main.go", "// See docs/b.md, \"No such part\".\npackage main\n")
	write("docs/b.md", "# Part one\n\n## Walks\n")
	write("docs/benchmarks/2026-01-01.md", "# A run\n\n`old_function` was renamed since; [gone](../nothere.md).\n")
	write("allow.txt", "# none\nvfs_rename Linux's fs/namei.c\nunused_name Linux's, no longer named\n")
	write("docs/a.md", strings.Join([]string{
		"# A",
		"`wake_thread` and `sched/wake.rs` exist; `vfs_rename` is allowed.",
		"`wake_threads` does not; neither does `sched/sleep.rs`,",
		"nor kernel/src/sched/sleep.rs in prose.",
		"[up](../shared/docs/x.md), [abs](/work/shared/x.md), [f](file:///etc/passwd), [esc](../../x.md),",
		"[ok](b.md#walks), [bad](b.md#runs), [gone](c.md), [web](https://go.dev/doc).",
		"See b.md, \"Walks\"; and b.md, \"Runs\".",
		"Read /work/shared/docs/linux-baseline.md.",
		"<!-- not in the tree: msi_vector; a design -->",
		"`msi_vector(dev)` is proposed.",
		"",
		"```",
		"`not_checked_in_a_fence`",
		"```",
	}, "\n"))
	probs, err := Run(root, filepath.Join(root, "allow.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range probs {
		got = append(got, p.String())
	}
	all := strings.Join(got, "\n")
	want := []string{
		"docs/a.md:3: `wake_threads`: wake_threads appears nowhere",
		"docs/a.md:3: `sched/sleep.rs`: no such file",
		"docs/a.md:4: kernel/src/sched/sleep.rs: no such file",
		"docs/a.md:5: link ../shared/docs/x.md: no such file",
		"docs/a.md:5: \"../shared\" points outside",
		"docs/a.md:5: link /work/shared/x.md is an absolute path",
		"docs/a.md:5: link file:///etc/passwd leaves the repository",
		"docs/a.md:5: link ../../x.md leaves the repository",
		"docs/a.md:6: link to docs/b.md#runs: no such heading",
		"docs/a.md:6: link c.md: no such file",
		"docs/a.md:7: b.md, \"Runs\": no heading there says that",
		"docs/a.md:8: \"/work/\" points outside",
		"cmd/tool/main.go:1: docs/b.md, \"No such part\": no heading",
		"allow.txt:3: \"unused_name\" is allowed but no doc needs it any more",
		"docs/benchmarks/2026-01-01.md:3: link ../nothere.md: no such file",
	}
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("missing problem %q", w)
		}
	}
	for _, ok := range []string{"`wake_thread`", "sched/wake.rs`", "vfs_rename", "b.md#walks", "go.dev", "\"Walks\"", "msi_vector", "not_checked_in_a_fence", "old_function"} {
		if strings.Contains(all, ok) {
			t.Errorf("%s reported, but it is fine:\n%s", ok, all)
		}
	}
	if t.Failed() {
		t.Logf("problems found:\n%s", all)
	}
}
