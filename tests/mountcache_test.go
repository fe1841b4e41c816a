package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestMountCached: `-mount HOST:/data:ro,cache=loose` in a 128 MiB machine
// at 2 CPUs (progs/hostfiles cached): 12 files of 4 MiB, more than the
// cache may hold (a quarter of memory), read by 4 threads at once, twice,
// every byte checked, one file mapped shared and private; /proc/mounts shows cache=loose and meminfo's Cached
// stays within the bound; then the program takes 70% of MemAvailable,
// more than is free, and must not be killed for want of memory (the
// cache gives its pages back), and reads everything once more. The stats
// must show the cache evicted pages.
func TestMountCached(t *testing.T) { parallelArches(t, testMountCached) }

var cacheEvicted = regexp.MustCompile(`gometal: share page cache: .* (\d+) evicted`)

func testMountCached(t *testing.T, a *arch) {
	t.Parallel()
	share := filepath.Join(t.TempDir(), "share")
	if err := os.MkdirAll(share, 0o755); err != nil {
		t.Fatal(err)
	}
	for f := 0; f < 12; f++ {
		data := make([]byte, 4<<20+123)
		for off := range data {
			data[off] = byte(off*7 + off>>12 + f*13) // hostfiles' cachedByte
		}
		if err := os.WriteFile(filepath.Join(share, fmt.Sprintf("c%d.bin", f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := bootHostfiles(t, a, "cached", "-cores", "2", "-mem", "128M", "-kernel-args", "stats", "-mount", share+":/data:ro,cache=loose")
	m := cacheEvicted.FindStringSubmatch(out)
	if !hasLine(out, "the cache gave its memory back") || m == nil {
		t.Fatalf("no cache figures:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 {
		t.Errorf("48 MiB read through a cache of at most 32 MiB, and nothing evicted:\n%s", m[0])
	}
	t.Log(m[0])
	for _, l := range regexp.MustCompile(`(?m)^(read|took) .*$`).FindAllString(out, -1) {
		t.Log(l)
	}
}
