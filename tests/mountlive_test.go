package tests

// The share is live (kernel/src/fs/share.rs): what a program writes is on
// the host when write returns, so a run killed from outside loses nothing;
// the host's changes during the run are seen; a file bigger than the
// machine's memory streams through; renames across mounts are EXDEV; a
// shared mapping's stores reach the host at msync; mmap on a share behaves
// as on the in-memory tree.

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMountKilled: files written (one still open, one renamed) with no
// fsync are on the host after the run is stopped by -timeout.
func TestMountKilled(t *testing.T) { parallelArches(t, testMountKilled) }

func testMountKilled(t *testing.T, a *arch) {
	t.Parallel()
	for _, cores := range []int{1, 4} {
		share := filepath.Join(t.TempDir(), "share")
		out, status := bootMount(t, "-cores", strconv.Itoa(cores), "-timeout", "20s", "-mount", share+":/data",
			a.prog("hostfiles"), "killed")
		if status != 124 || !strings.Contains(out, "written; hanging") {
			t.Fatalf("smp%d: write then hang: status %d, want 124 (timeout)\n%s", cores, status, out)
		}
		if got := mustRead(t, filepath.Join(share, "unsynced.txt")); got != "never synced\n" {
			t.Errorf("smp%d: host unsynced.txt: %q", cores, got)
		}
		if got := mustRead(t, filepath.Join(share, "sub/moved.txt")); got != "written, still open\n" {
			t.Errorf("smp%d: host sub/moved.txt: %q", cores, got)
		}
		if _, err := os.Stat(filepath.Join(share, "sub/dir/open.txt")); !os.IsNotExist(err) {
			t.Errorf("smp%d: the old name of a renamed file is still on the host: %v", cores, err)
		}
	}
}

// TestMountHostChanges: the test changes the share while the guest runs
// (a file rewritten, a directory and file added, a file removed, a file
// replaced by a rename, then a marker the guest polls for); the guest must
// see all of it, on a read-write share (at 1 and 4 CPUs) and on a plain
// read-only one (`:ro` is as live; only `:ro,cache=loose` keeps what it read).
func TestMountHostChanges(t *testing.T) { parallelArches(t, testMountHostChanges) }

func testMountHostChanges(t *testing.T, a *arch) {
	t.Parallel()
	for _, m := range []struct {
		cores  int
		suffix string
	}{{1, ""}, {4, ""}, {2, ":ro"}} {
		cores := m.cores
		share := filepath.Join(t.TempDir(), "share")
		writeFiles(t, share, map[string]string{"watched.txt": "before\n", "gone.txt": "to be removed\n", "replaced.txt": "old file\n"})
		outPath := filepath.Join(t.TempDir(), "out")
		out, err := os.Create(outPath)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan int, 1)
		go func() {
			status, err := runGometal(nil, out, out, nil, []string{"-cores", strconv.Itoa(cores), "-mount", share + ":/data" + m.suffix,
				a.prog("hostfiles"), "watch"})
			if err != nil {
				status = -1
			}
			done <- status
		}()
		waitForOutput(t, outPath, "watching; change the share now", done)
		writeFiles(t, share, map[string]string{
			"watched.txt": "after, longer than before\n", "new/from-host.txt": "made during the run\n",
		})
		if err := os.Remove(filepath.Join(share, "gone.txt")); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, share, map[string]string{"replacement.tmp": "the new file, renamed over the old\n"})
		if err := os.Rename(filepath.Join(share, "replacement.tmp"), filepath.Join(share, "replaced.txt")); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, share, map[string]string{"marker": ""})
		status := <-done
		out.Close()
		b, _ := os.ReadFile(outPath)
		if status != 0 || !hasLine(string(b), "PASS hostfiles") || !strings.Contains(string(b), "host changes seen during the run") {
			t.Errorf("smp%d%s: watch: status %d\n%s", cores, m.suffix, status, b)
		}
	}
}

// waitForOutput waits until the file at path holds `want` (the boot is
// running) or the boot ends (a failure then).
func waitForOutput(t *testing.T, path, want string, done chan int) {
	t.Helper()
	for {
		select {
		case status := <-done:
			b, _ := os.ReadFile(path)
			t.Fatalf("the boot ended (status %d) before printing %q:\n%s", status, want, b)
		case <-time.After(100 * time.Millisecond):
		}
		if b, _ := os.ReadFile(path); strings.Contains(string(b), want) {
			return
		}
	}
}

// TestMountCrossDevice: rename and link between a share, the in-memory
// tree and a second share are EXDEV; inside a share they work.
func TestMountCrossDevice(t *testing.T) { parallelArches(t, testMountCrossDevice) }

func testMountCrossDevice(t *testing.T, a *arch) {
	t.Parallel()
	for _, cores := range []int{1, 4} {
		share, other := filepath.Join(t.TempDir(), "share"), filepath.Join(t.TempDir(), "other")
		if err := os.MkdirAll(other, 0o755); err != nil {
			t.Fatal(err)
		}
		bootHostfiles(t, a, "exdev", "-cores", strconv.Itoa(cores), "-mount", share+":/data", "-mount", other+":/other")
		for _, name := range []string{"z.txt", "hard.txt"} {
			if got := mustRead(t, filepath.Join(share, name)); got != "x\n" {
				t.Errorf("smp%d: host %s: %q", cores, name, got)
			}
		}
		if _, err := os.Stat(filepath.Join(share, "x.txt")); !os.IsNotExist(err) {
			t.Errorf("smp%d: host x.txt after the rename: %v", cores, err)
		}
		if entries, _ := os.ReadDir(other); len(entries) != 0 {
			t.Errorf("smp%d: the second share changed: %v", cores, entries)
		}
	}
}

// TestMountMsync: stores through a shared mapping are on the host after
// msync, though the run is then killed.
func TestMountMsync(t *testing.T) { parallelArches(t, testMountMsync) }

func testMountMsync(t *testing.T, a *arch) {
	t.Parallel()
	for _, cores := range []int{1, 4} {
		share := filepath.Join(t.TempDir(), "share")
		out, status := bootMount(t, "-cores", strconv.Itoa(cores), "-timeout", "20s", "-mount", share+":/data",
			a.prog("hostfiles"), "msync")
		if status != 124 || !strings.Contains(out, "msynced; hanging") {
			t.Fatalf("smp%d: msync then hang: status %d, want 124\n%s", cores, status, out)
		}
		b, err := os.ReadFile(filepath.Join(share, "mapped.bin"))
		if err != nil || len(b) != 8192 || string(b[4096+7:4096+33]) != "stored through the mapping" {
			t.Errorf("smp%d: host mapped.bin: %d bytes, %v", cores, len(b), err)
		}
	}
}

// TestMountMmap: tests/progs/mmapfile (shared and private mappings kept
// coherent with read, write and truncate) on a share instead of /tmp.
func TestMountMmap(t *testing.T) { parallelArches(t, testMountMmap) }

func testMountMmap(t *testing.T, a *arch) {
	t.Parallel()
	for _, cores := range []int{1, 4} {
		share := filepath.Join(t.TempDir(), "share")
		if err := os.MkdirAll(share, 0o755); err != nil {
			t.Fatal(err)
		}
		out, status := bootMount(t, "-cores", strconv.Itoa(cores), "-env", "TMPDIR=/data", "-mount", share+":/data",
			a.prog("mmapfile"))
		if status != 0 || !hasLine(out, "PASS mmapfile") {
			t.Errorf("smp%d: mmapfile on a share: %d\n%s", cores, status, out)
		}
	}
}

// TestMountBigFile: a file bigger than the machine's memory is read and
// written through a share (nothing of it is held in memory).
func TestMountBigFile(t *testing.T) { parallelArches(t, testMountBigFile) }

func testMountBigFile(t *testing.T, a *arch) {
	t.Parallel()
	share := filepath.Join(t.TempDir(), "share")
	data := make([]byte, 160<<20) // -mem is 128M
	r := rand.New(rand.NewPCG(13, 160))
	for i := 0; i < len(data); i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			data[i+j] = byte(v >> (8 * j))
		}
	}
	writeFiles(t, share, map[string]string{"big.in": string(data)})
	sum := fmt.Sprintf("%x", sha256.Sum256(data))
	for _, cores := range []int{1, 4} {
		out := bootHostfiles(t, a, "big", "-cores", strconv.Itoa(cores), "-mem", "128M", "-mount", share+":/data")
		if !strings.Contains(out, fmt.Sprintf("streamed %d bytes, sha256 %s", len(data), sum)) {
			t.Errorf("smp%d: the guest read other bytes (want sha256 %s):\n%s", cores, sum, out)
		}
		copied, err := os.ReadFile(filepath.Join(share, "big.out"))
		if err != nil || fmt.Sprintf("%x", sha256.Sum256(copied)) != sum {
			t.Errorf("smp%d: host big.out (%d bytes) differs from big.in: %v", cores, len(copied), err)
		}
		os.Remove(filepath.Join(share, "big.out"))
	}
}

// TestMountParallelRead: 4 threads read 4 files of a share at once (their
// 9P requests in flight together, each thread asleep until its reply's
// interrupt) while a fifth writes one; every byte is the host's. At 1 CPU
// too: the threads sleep, so one CPU serves them all.
func TestMountParallelRead(t *testing.T) { parallelArches(t, testMountParallelRead) }

func testMountParallelRead(t *testing.T, a *arch) {
	t.Parallel()
	share := filepath.Join(t.TempDir(), "share")
	files := map[string]string{}
	var want []string
	for i := 0; i < 4; i++ {
		data := make([]byte, (3<<20)+i*12345)
		r := rand.New(rand.NewPCG(uint64(i), 4))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		name := fmt.Sprintf("p%d.in", i)
		files[name] = string(data)
		want = append(want, fmt.Sprintf("%s: %d bytes, sha256 %x", name, len(data), sha256.Sum256(data)))
	}
	writeFiles(t, share, files)
	for _, cores := range []int{1, 4} {
		out := bootHostfiles(t, a, "parallel", "-cores", strconv.Itoa(cores), "-mount", share+":/data")
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("smp%d: want %q in:\n%s", cores, w, out)
			}
		}
		if fi, err := os.Stat(filepath.Join(share, "out.bin")); err != nil || fi.Size() != 3<<20 {
			t.Errorf("smp%d: host out.bin: %v", cores, err)
		}
		os.Remove(filepath.Join(share, "out.bin"))
	}
}
