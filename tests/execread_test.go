package tests

// TestExecReadAll: a test that lists its package directory, then stats and
// reads every file in it from ten goroutines at once
// (tests/testdata/execread), run with `go test -exec 'gometal exec'` at 4
// CPUs. Under the default -module (a read-only share mounted
// cache=loose) it must pass, and the kernel's stats must show the share
// asked the host less than once per file per reader (every later open,
// stat and read served from the cache); under -module rw (a live share)
// it must pass too, each reader going to the host.

import (
	"context"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestExecReadAll(t *testing.T) { parallelArches(t, testExecReadAll) }

// execReaders is testdata/execread's `readers`.
const execReaders = 10

// shareRequests matches the stats line of a share: tag, guest path, how it
// is mounted, requests to the host.
var shareRequests = regexp.MustCompile(`gometal: share (gm\d+) at (\S+) \(([^)]*)\): (\d+) requests to the host`)

func testExecReadAll(t *testing.T, a *arch) {
	t.Parallel()
	mod := filepath.Join(t.TempDir(), "execread")
	copyTree(t, filepath.Join(modRoot, "tests", "testdata", "execread"), mod)
	files := writeExecReadFiles(t, mod)
	for _, m := range []struct {
		module, how string
		cached      bool
	}{
		{"auto", "ro, cache=loose", true},
		{"rw", "rw", false},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-v", "-exec", gometal+" exec", ".")
		cmd.Dir = mod
		cmd.Env = execEnv(a, "-cores 4 -kernel-args stats -module "+m.module)
		bootSem <- struct{}{}
		out, err := cmd.CombinedOutput()
		<-bootSem
		cancel()
		name := "-module " + m.module
		if err != nil || !strings.Contains(string(out), "--- PASS: TestReadAll") {
			t.Errorf("%s: go test -exec 'gometal exec': %v\n%s", name, err, tail(string(out), tailLines))
			continue
		}
		requests := -1
		for _, s := range shareRequests.FindAllStringSubmatch(string(out), -1) {
			if s[2] == mod && s[3] == m.how {
				requests, _ = strconv.Atoi(s[4])
			}
		}
		// Without a cache each reader's stat, open, fstat and read of a
		// file are round trips of their own (7 and more); with one, the
		// first reader's lookup, open and reads are about 5 per file.
		bound := files * execReaders
		switch {
		case requests < 0:
			t.Errorf("%s: no stats line for the share at %s (%s):\n%s", name, mod, m.how, tail(string(out), tailLines))
		case m.cached && requests >= bound:
			t.Errorf("%s: %d requests to the host for %d files read %d times: the cache is not used", name, requests, files, execReaders)
		case !m.cached && requests < bound:
			t.Errorf("%s: only %d requests to the host for %d files read %d times: a read-write share must not be cached", name, requests, files, execReaders)
		}
		t.Logf("%s: %d files read by %d goroutines, %d requests to the host", name, files, execReaders, requests)
	}
}

// writeExecReadFiles fills the package's testdata with files of sizes
// around page and message boundaries, then writes MANIFEST (a line per
// file but itself: size, CRC-32, path); returns how many it lists.
func writeExecReadFiles(t *testing.T, mod string) int {
	t.Helper()
	sizes := []int{0, 1, 100, 3000, 4095, 4096, 4097, 9000, 20000, 65536, 65537, 100000}
	r := rand.New(rand.NewPCG(7, 30))
	for i := 0; i < 120; i++ {
		dir := filepath.Join(mod, "testdata")
		if i%3 == 0 {
			dir = filepath.Join(dir, "sub")
		}
		data := make([]byte, sizes[i%len(sizes)])
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.bin", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var lines []string
	err := filepath.Walk(mod, func(p string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(mod, p)
		lines = append(lines, fmt.Sprintf("%d %08x %s", len(b), crc32.ChecksumIEEE(b), rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	if err := os.WriteFile(filepath.Join(mod, "MANIFEST"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return len(lines)
}
