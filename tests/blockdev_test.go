package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gometal.dev/gometal/internal/bench"
)

// TestUIOBlockdev boots the block benchmark (bench/blockdev) on a small
// image made on the host, so the mode `gometal bench blockdev` uses cannot
// rot: the Go virtio-blk driver must read the whole image with the host's
// SHA-256 and random blocks with their stamped indexes, at 1 and 4 harts;
// and a wrong checksum must be refused (the check is real).
func TestUIOBlockdev(t *testing.T) { forArches(t, testUIOBlockdev) }

func testUIOBlockdev(t *testing.T, a *arch) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "blockdev")
	build := exec.Command("go", "build", "-o", prog, "./bench/blockdev")
	build.Dir, build.Env = modRoot, append(os.Environ(), a.machine.Arch.BuildEnv()...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building bench/blockdev: %v\n%s", err, out)
	}
	img := filepath.Join(dir, "disk.img")
	sum, err := bench.WriteBlockImage(img, 2<<20, 7)
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Repeat("0", len(sum))
	for _, run := range []struct {
		name, sum string
		cores     int
		want      []string
	}{
		{"smp1", sum, 1, []string{`"what":"seq"`, `"what":"rand4k"`, "blockdev: 2097152 bytes verified", "200 random blocks verified"}},
		{"smp4", sum, 4, []string{`"what":"seq"`, `"what":"rand4k"`, "blockdev: 2097152 bytes verified"}},
		{"wrong-sum", wrong, 1, []string{"the disk's SHA-256 is " + sum}},
	} {
		t.Run(run.name, func(t *testing.T) {
			bootSem <- struct{}{}
			defer func() { <-bootSem }()
			ctx, cancel := context.WithTimeout(context.Background(), hostTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, gometal, "run", "-cores", fmt.Sprint(run.cores), "-timeout", "60s",
				"-device", "blk="+img, prog, "-seq", "65536", "-rand", "200", "-sum", run.sum)
			cmd.Dir = modRoot
			cmd.Env = gometalEnv()
			out, _ := cmd.CombinedOutput()
			for _, w := range run.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if run.sum == wrong && strings.Contains(string(out), `"what":"seq"`) {
				t.Errorf("a wrong checksum still gave a figure:\n%s", out)
			}
		})
	}
}
