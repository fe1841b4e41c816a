package kernelimage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"gometal.dev/gometal/internal/bootimage"
)

// ImageFile returns the path of a kernel Image for the kernel at path:
// path itself when it already is one, else (the ELF cargo links and
// gometal embeds) the flat Image made from it, written once per kernel
// to gometal's cache directory. QEMU boots the Image, as U-Boot and the
// other loaders would.
func ImageFile(path string) (string, error) {
	img, converted, err := image(path)
	if err != nil || !converted {
		return path, err
	}
	dir, err := cacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(img)
	out := filepath.Join(dir, "kernel-"+hex.EncodeToString(sum[:8])+".img")
	return out, writeOnce(out, img)
}

// Image returns the flat kernel Image made from the ELF at path (or the
// file itself when it is an Image already): what `gometal build` puts a
// program after.
func Image(path string) ([]byte, error) {
	img, _, err := image(path)
	return img, err
}

// image reads the kernel at path as a flat Image, converting an ELF
// (converted is then true).
func image(path string) (img []byte, converted bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, fmt.Errorf("kernel %s: %w", path, err)
	}
	if !bytes.HasPrefix(data, []byte("\x7fELF")) {
		if _, err := bootimage.Check(data); err != nil {
			return nil, false, fmt.Errorf("kernel %s: %w", path, err)
		}
		return data, false, nil
	}
	img, err = bootimage.FromELF(data)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return img, true, nil
}
