package kernelimage

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// EmbeddedPath is the committed kernel image, relative to the module root;
// `make kernel` refreshes it and TestEmbeddedMatchesSources checks it.
const EmbeddedPath = "internal/kernelimage/" + embeddedName

const embeddedName = "gometal-kernel.elf"

// kernels are the kernels built from this checkout's sources (release
// profile, reproducibly: see reproducible.go), one per architecture
// (gometal-kernel.elf for riscv64, gometal-kernel-arm64.elf), so an
// installed gometal needs neither the sources nor a Rust toolchain. The
// pattern embeds whichever of them the checkout has.
//
//go:embed gometal-kernel*.elf
var kernels embed.FS

// Embedded returns the riscv64 kernel image compiled into gometal.
func Embedded() []byte { return EmbeddedFor(DefaultArch) }

// EmbeddedFor returns arch's kernel image compiled into gometal (nil if
// this gometal was built without one).
func EmbeddedFor(arch string) []byte {
	data, err := kernels.ReadFile(kernelFor(arch).embedded)
	if err != nil {
		return nil
	}
	return data
}

// extractEmbedded extracts the riscv64 kernel; see extractEmbeddedFor.
func extractEmbedded() (string, error) { return extractEmbeddedFor(DefaultArch) }

// extractEmbeddedFor gives QEMU, which boots a file, the embedded image: it is
// written once per image to gometal's directory in the user's cache, named
// by its hash, and reused while its bytes match.
func extractEmbeddedFor(arch string) (string, error) {
	embedded := EmbeddedFor(arch)
	if len(embedded) == 0 {
		return "", ErrNotFound
	}
	dir, err := cacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(embedded)
	path := filepath.Join(dir, "kernel-"+hex.EncodeToString(sum[:8])+".elf")
	return path, writeOnce(path, embedded)
}

// cacheDir is $XDG_CACHE_HOME/gometal (or ~/.cache/gometal), else a
// per-user directory under the temporary directory: the first that can be
// created and that only this user can write to.
func cacheDir() (string, error) {
	var dirs []string
	if base, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(base, "gometal"))
	}
	dirs = append(dirs, filepath.Join(os.TempDir(), "gometal-"+strconv.Itoa(os.Getuid())))
	var errs []error
	for _, dir := range dirs {
		err := privateDir(dir)
		if err == nil {
			return dir, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("extracting the embedded kernel: %w", errors.Join(errs...))
}

// privateDir creates dir (0700) if need be and checks that it is a real
// directory owned by us that nobody else can write to: the image QEMU
// boots must not be replaceable by another user.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() || st.Mode().Perm()&0o022 != 0 || !ownedByUs(st) {
		return fmt.Errorf("%s: not a private directory of this user", dir)
	}
	return nil
}

// writeOnce makes path hold data: kept if it already does, else written
// to a temporary file and renamed over it, so concurrent gometal runs (go
// test runs packages in parallel) never see a partial image.
func writeOnce(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kernel-*")
	if err != nil {
		return fmt.Errorf("extracting the embedded kernel: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("extracting the embedded kernel: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("extracting the embedded kernel: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("extracting the embedded kernel: %w", err)
	}
	return nil
}
