package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gometal.dev/gometal/internal/kernelimage"
)

// TestUIODisk boots examples/fatls with a FAT32 image made on the host
// (mkfs.fat, mcopy): the Go virtio-blk driver over UIO must list the
// host's file and write one that the host then reads back (mtype), at 1
// and 4 harts.
func TestUIODisk(t *testing.T) {
	if qemuErr != nil || kernelErr != nil {
		t.Skip("no QEMU or kernel (TestBoot reports it)")
	}
	for _, tool := range []string{"mkfs.fat", "mcopy", "mtype"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not installed: make deps installs dosfstools and mtools", tool)
		}
	}
	for _, cores := range []int{1, 4} {
		t.Run(fmt.Sprintf("smp%d", cores), func(t *testing.T) {
			t.Parallel()
			bootSem <- struct{}{}
			defer func() { <-bootSem }()
			dir := t.TempDir()
			img := filepath.Join(dir, "fat.img")
			host := filepath.Join(dir, "host.txt")
			mustRun(t, "mkfs.fat", "-F", "32", "-C", img, "40960")
			if err := os.WriteFile(host, []byte("from the host side\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			mustRun(t, "mcopy", "-i", img, host, "::HOST.TXT")
			text := fmt.Sprintf("gometal at %d harts", cores)
			ctx, cancel := context.WithTimeout(context.Background(), hostTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, gometal, "run", "-cores", fmt.Sprint(cores), "-timeout", "60s",
				"-disk", img, filepath.Join(exampleDir, "fatls"), "FROMGO.TXT", text)
			cmd.Dir = modRoot
			cmd.Env = append(os.Environ(), kernelimage.EnvKernel+"="+kernel)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("gometal run: %v\n%s", err, out)
			}
			for _, want := range []string{`HOST.TXT  "from the host side"`, "wrote FROMGO.TXT", "read back equal=true"} {
				if !strings.Contains(strings.ReplaceAll(string(out), "host.txt", "HOST.TXT"), want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if got := mustRun(t, "mtype", "-i", img, "::FROMGO.TXT"); got != text+"\n" {
				t.Errorf("the host reads FROMGO.TXT as %q, want %q", got, text+"\n")
			}
		})
	}
}

func mustRun(t *testing.T, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}
