package tests

// Host directories mounted with -mount: what the program changes is on the
// host when gometal run returns, a second boot sees it, nothing escapes the
// share, :ro shares stay untouched, and the SQLite and bbolt examples keep
// their data across boots in files the host can open.

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bootMount boots a program with extra gometal flags; returns its output
// (stdout and stderr as one file, as with 2>&1: the kernel's lines stay
// whole, cmd/gometal/boot.go) and exit status.
func bootMount(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return bootMountFor(t, guestTimeout, args...)
}

// bootMountFor is bootMount with another guest timeout: every read, write
// and stat on a share is a round trip through QEMU, slow on a loaded host.
func bootMountFor(t *testing.T, guest time.Duration, args ...string) (string, int) {
	t.Helper()
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	status, err := runGometalFor(guest, nil, out, out, nil, args)
	if err != nil {
		t.Fatalf("running gometal: %v", err)
	}
	b, _ := os.ReadFile(out.Name())
	return string(b), status
}

// bootHostfiles boots tests/progs/hostfiles in `mode` with `flags` and
// fails the test unless it passes; returns its output.
func bootHostfiles(t *testing.T, a *arch, mode string, flags ...string) string {
	t.Helper()
	out, status := bootMount(t, append(flags, a.prog("hostfiles"), mode)...)
	if status != 0 || !hasLine(out, "PASS hostfiles") {
		t.Fatalf("hostfiles %s %v: status %d\n%s", mode, flags, status, out)
	}
	return out
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("host: %v", err)
	}
	return string(b)
}

func TestMountWriteBack(t *testing.T) { parallelArches(t, testMountWriteBack) }

func testMountWriteBack(t *testing.T, a *arch) {
	t.Parallel()
	for _, cores := range []int{1, 4} {
		share := filepath.Join(t.TempDir(), "share") // a fresh share per hart count
		writeFiles(t, share, map[string]string{
			"keep.txt": "from the host\n", "remove-me.txt": "x", "old/inner.txt": "old",
			"swap/a/b.txt": "a directory the guest turns into a file",
		})
		out := bootHostfiles(t, a, "write", "-cores", strconv.Itoa(cores), "-mount", share+":/data")
		// The host has every change the moment gometal run returned.
		if got := mustRead(t, filepath.Join(share, "new.txt")); got != "written by the guest\n" {
			t.Errorf("host new.txt: %q", got)
		}
		if st, err := os.Stat(filepath.Join(share, "new.txt")); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("host new.txt mode: %v %v", st, err)
		}
		if got := mustRead(t, filepath.Join(share, "dir1/dir2/deep.txt")); got != "deep\n" {
			t.Errorf("host deep.txt: %q", got)
		}
		if got := mustRead(t, filepath.Join(share, "swap")); got != "now a file\n" {
			t.Errorf("host swap (a directory the guest replaced by a file): %q", got)
		}
		if got := mustRead(t, filepath.Join(share, "renamed.txt")); got != "from the host\n" {
			t.Errorf("host renamed.txt: %q", got)
		}
		for _, gone := range []string{"keep.txt", "remove-me.txt", "old"} {
			if _, err := os.Lstat(filepath.Join(share, gone)); !os.IsNotExist(err) {
				t.Errorf("host %s still there: %v", gone, err)
			}
		}
		if target, err := os.Readlink(filepath.Join(share, "link")); err != nil || target != "new.txt" {
			t.Errorf("host link: %q %v", target, err)
		}
		sum := fmt.Sprintf("%x", sha256.Sum256([]byte(mustRead(t, filepath.Join(share, "big.bin")))))
		if !strings.Contains(out, "big.bin sha256 "+sum) {
			t.Errorf("host big.bin sha256 %s is not what the guest wrote:\n%s", sum, out)
		}
		writeFiles(t, share, map[string]string{"from-host.txt": "added between boots\n"})
		out = bootHostfiles(t, a, "check", "-cores", strconv.Itoa(cores), "-mount", share+":/data")
		if !strings.Contains(out, "big.bin sha256 "+sum) {
			t.Errorf("smp%d: the second boot read other bytes:\n%s", cores, out)
		}
	}
}

func TestMountEscape(t *testing.T) { parallelArches(t, testMountEscape) }

func testMountEscape(t *testing.T, a *arch) {
	t.Parallel()
	top := t.TempDir()
	share, outside := filepath.Join(top, "share"), filepath.Join(top, "outside")
	writeFiles(t, outside, map[string]string{"secret.txt": "SECRET\n"})
	writeFiles(t, share, map[string]string{"file.txt": "in the share\n"})
	for name, target := range map[string]string{
		"up": "..", "abs": filepath.Join(outside, "secret.txt"), "etc": "/etc",
	} {
		if err := os.Symlink(target, filepath.Join(share, name)); err != nil {
			t.Fatal(err)
		}
	}
	bootHostfiles(t, a, "escape", "-mount", share+":/data")
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 || mustRead(t, filepath.Join(outside, "secret.txt")) != "SECRET\n" {
		t.Errorf("the host outside the share changed: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(top, "planted.txt")); err == nil {
		t.Errorf("a file was planted above the share")
	}
	if got := mustRead(t, filepath.Join(share, "inside.txt")); got != "inside\n" {
		t.Errorf("inside.txt: %q", got)
	}
}

func TestMountReadOnly(t *testing.T) { parallelArches(t, testMountReadOnly) }

func testMountReadOnly(t *testing.T, a *arch) {
	t.Parallel()
	share := filepath.Join(t.TempDir(), "ro")
	writeFiles(t, share, map[string]string{
		"keep.txt": "read only\n", "deep" + strings.Repeat("/d", 100) + "/bottom.txt": "bottom\n",
	})
	bootHostfiles(t, a, "ro", "-mount", share+":/ro:ro")
	entries, _ := os.ReadDir(share)
	if len(entries) != 2 || mustRead(t, filepath.Join(share, "keep.txt")) != "read only\n" {
		t.Errorf("a :ro share changed: %v", entries)
	}
}

// TestMountExamples runs the README's commands: kvstore keeps a key across
// boots, and the SQLite example leaves a database the host's sqlite3 reads.
func TestMountExamples(t *testing.T) { parallelArches(t, testMountExamples) }

func testMountExamples(t *testing.T, a *arch) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	kv := a.example("kvstore")
	if out, status := bootMount(t, "-mount", data+":/data", kv, "put", "k", "v"); status != 0 {
		t.Fatalf("kvstore put: %d\n%s", status, out)
	}
	if out, status := bootMount(t, "-mount", data+":/data", kv, "get", "k"); status != 0 || !hasLine(out, "v") {
		t.Fatalf("kvstore get after a reboot: %d\n%s", status, out)
	}
	sq := a.example("sqlite")
	for _, note := range []string{"first", "second"} {
		if out, status := bootMount(t, "-mount", data+":/data", sq, note); status != 0 {
			t.Fatalf("sqlite example: %d\n%s", status, out)
		}
	}
	sqlite3, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("the host has no sqlite3 (apt-get install sqlite3) to open the database with")
	}
	got, err := exec.Command(sqlite3, filepath.Join(data, "example.db"),
		"SELECT group_concat(note) FROM runs; PRAGMA integrity_check;").CombinedOutput()
	if err != nil || string(got) != "first,second\nok\n" {
		t.Errorf("host sqlite3: %q %v", got, err)
	}
}

// TestMountDatabases: SQLite with 100k rows and bbolt on 4 harts on a
// mounted share; the host's sqlite3 gets the same count and sum, and a
// second boot opens the bbolt file the first left.
func TestMountDatabases(t *testing.T) { parallelArches(t, testMountDatabases) }

func testMountDatabases(t *testing.T, a *arch) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	out, status := bootMountFor(t, 5*time.Minute, "-cores", "4", "-mount", data+":/data", a.prog("sqlitedb"),
		"-rows", "100000", "-path", "/data/test.db")
	if status != 0 || !strings.Contains(out, "sqlite: 100000 rows, id sum 4999950000, reopened, integrity ok") {
		t.Fatalf("sqlitedb on the share: %d\n%s", status, out)
	}
	if sqlite3, err := exec.LookPath("sqlite3"); err == nil {
		got, err := exec.Command(sqlite3, filepath.Join(data, "test.db"), "SELECT count(*), sum(id) FROM kv; PRAGMA integrity_check;").CombinedOutput()
		if err != nil || string(got) != "100000|4999950000\nok\n" {
			t.Errorf("host sqlite3 on the guest's database: %q %v", got, err)
		}
	} else {
		t.Log("no sqlite3 on the host: the host-side check of test.db is skipped")
	}
	for boot := 1; boot <= 2; boot++ {
		out, status := bootMount(t, "-cores", "4", "-mount", data+":/data", a.prog("bboltdb"), "-path", "/data/bolt.db")
		if status != 0 || !hasLine(out, "PASS bboltdb") {
			t.Fatalf("bboltdb boot %d on the share: %d\n%s", boot, status, out)
		}
	}
	if st, err := os.Stat(filepath.Join(data, "bolt.db")); err != nil || st.Size() == 0 {
		t.Errorf("host bolt.db: %v %v", st, err)
	}
}

// TestMountFsync: fsync, fsync of a directory and sync(2) succeed on a
// share, and what the program wrote is on the host even when the run
// never exits (stopped by -timeout): fsynced or not, in either share,
// since every write reaches the host at the call.
func TestMountFsync(t *testing.T) { parallelArches(t, testMountFsync) }

func testMountFsync(t *testing.T, a *arch) {
	t.Parallel()
	t.Run("fsync", func(t *testing.T) {
		t.Parallel()
		share, other := filepath.Join(t.TempDir(), "share"), filepath.Join(t.TempDir(), "other")
		out, status := bootMount(t, "-timeout", "10s", "-mount", share+":/data", "-mount", other+":/other",
			a.prog("hostfiles"), "fsync")
		if status != 124 || !strings.Contains(out, "fsynced; hanging") {
			t.Fatalf("fsync then hang: status %d, want 124 (timeout)\n%s", status, out)
		}
		for path, want := range map[string]string{
			filepath.Join(share, "sub/dir/synced.txt"): "synced before the crash\n",
			filepath.Join(share, "sub/dir/listed.txt"): "listed\n",
			filepath.Join(share, "unsynced.txt"):       "never synced\n",
			filepath.Join(other, "unsynced.txt"):       "never synced\n",
		} {
			if got := mustRead(t, path); got != want {
				t.Errorf("host %s: %q, want %q", path, got, want)
			}
		}
	})
	t.Run("sync", func(t *testing.T) {
		t.Parallel()
		share := filepath.Join(t.TempDir(), "share")
		out, status := bootMount(t, "-timeout", "10s", "-mount", share+":/data", a.prog("hostfiles"), "sync")
		if status != 124 || !strings.Contains(out, "synced; hanging") {
			t.Fatalf("sync then hang: status %d, want 124 (timeout)\n%s", status, out)
		}
		if got := mustRead(t, filepath.Join(share, "synced.txt")); got != "synced\n" {
			t.Errorf("host synced.txt: %q", got)
		}
		if got := mustRead(t, filepath.Join(share, "late.txt")); got != "after sync\n" {
			t.Errorf("host late.txt (written after sync, then killed): %q", got)
		}
	})
}

// TestMountStatfs: statfs in the guest reports the shared directory's own
// file system, as the host's statfs sees it.
func TestMountStatfs(t *testing.T) { parallelArches(t, testMountStatfs) }

func testMountStatfs(t *testing.T, a *arch) {
	t.Parallel()
	share := filepath.Join(t.TempDir(), "share")
	writeFiles(t, share, map[string]string{"file.txt": "x"})
	out := bootHostfiles(t, a, "statfs", "-mount", share+":/data")
	var host syscall.Statfs_t
	if err := syscall.Statfs(share, &host); err != nil {
		t.Fatal(err)
	}
	var g struct{ typ, bsize, blocks, bfree, bavail, files, ffree, namelen int64 }
	if _, err := fmt.Sscanf(out[strings.Index(out, "statfs type"):], "statfs type %d bsize %d blocks %d bfree %d bavail %d files %d ffree %d namelen %d",
		&g.typ, &g.bsize, &g.blocks, &g.bfree, &g.bavail, &g.files, &g.ffree, &g.namelen); err != nil {
		t.Fatalf("guest statfs line: %v\n%s", err, out)
	}
	// QEMU reports bigger blocks (a multiple of the host's, near the 9P
	// message size) and divides the counts to match: the sizes in bytes
	// agree to within one of the guest's blocks.
	hostBytes := func(n uint64) int64 { return int64(n) * host.Bsize }
	if g.bsize%host.Bsize != 0 || g.typ != int64(host.Type) || g.files != int64(host.Files) || g.namelen != host.Namelen {
		t.Errorf("guest statfs %+v, host %+v", g, host)
	}
	if d := hostBytes(host.Blocks) - g.blocks*g.bsize; d < 0 || d >= g.bsize {
		t.Errorf("guest size %d x %d, host %d x %d", g.blocks, g.bsize, host.Blocks, host.Bsize)
	}
	// Free space moves while other programs run on the host: 1 GiB slack.
	if d := hostBytes(host.Bfree) - g.bfree*g.bsize; d < -(1<<30) || d > 1<<30 {
		t.Errorf("guest free %d x %d, host %d x %d", g.bfree, g.bsize, host.Bfree, host.Bsize)
	}
}
