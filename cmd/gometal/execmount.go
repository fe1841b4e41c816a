package main

// How `gometal exec` shows the test its module: by default a read-only
// -mount of the module's directory (where go.mod is; the working directory
// when there is none) at its own absolute path, so that testdata/,
// ../testdata and absolute paths resolve as on Linux. Read-only because a
// test that writes into its source tree should get EROFS rather than
// change your files through a young kernel (Go tests should write to
// t.TempDir()); -module rw is there for tests that update golden files in
// place, and then they do change the tree, as on Linux. -module pack
// copies the tree into the initramfs instead, the way gometal exec worked
// before shares existed: writes succeed and are lost, git-ignored files
// and nested modules are left out, at most -max-dir bytes.
//
// The default (auto) packs a module bigger than -max-dir or with more than
// autoMaxEntries files instead of mounting it, because the kernel reads a
// share whole into guest memory at boot (README, "Host directories"):
// booting the strings tests took 72 s with $GOROOT/src (157 MB in 12,800
// files) mounted against 3 s packed (cut to 100M), at host load 19. A
// kernel that mounts shares live makes these limits pointless.

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"gometal.dev/gometal/internal/goexec"
)

// Module modes for -module.
const (
	moduleAuto = "auto"
	moduleRO   = "ro"
	moduleRW   = "rw"
	modulePack = "pack"
)

var moduleModes = []string{moduleAuto, moduleRO, moduleRW, modulePack}

const moduleUsage = "how the test sees its module (the go.mod directory, else the working directory) at its own path: " +
	"ro (a read-only share), rw (a read-write share: writes reach your files, as on Linux), " +
	"pack (a copy in the initramfs: writes succeed and are lost at exit), " +
	"auto (ro, or pack when the module is bigger than -max-dir or has more than 5000 files)"

// moduleShare returns the share that shows the test its module: the
// directory to mount at its own path, or ok false when the module is to
// be packed instead, with the reason (for -v) if that was not asked for.
// dir is the working directory (absolute); existing are the -mount flags.
func moduleShare(dir string, f *execFlags) (m guestMount, ok bool, why string) {
	if f.module == modulePack || dir == "" {
		return guestMount{}, false, ""
	}
	top := dir
	if !f.noModule {
		if root := goexec.ModuleDir(dir); root != "" && root != "/" {
			top = root
		}
	}
	if top == "/" {
		return guestMount{}, false, "the working directory is /"
	}
	// The kernel command line separates options with spaces and a mount
	// option's fields with ':'.
	if strings.ContainsAny(top, ": \t\n\"\\") {
		return guestMount{}, false, fmt.Sprintf("%s has a space, quote or ':' in its path, which a mount option cannot carry", top)
	}
	for _, other := range f.mounts {
		if within(other.guest, top) || within(top, other.guest) {
			return guestMount{}, false, fmt.Sprintf("-mount %s overlaps %s", other.guest, top)
		}
	}
	if f.module == moduleAuto && treeOver(top, f.maxBytes, autoMaxEntries) {
		return guestMount{}, false, fmt.Sprintf("%s holds more than -max-dir %s or %d files (a share is read whole into memory at boot; -module ro mounts it anyway)", top, f.maxDir, autoMaxEntries)
	}
	m = guestMount{host: top, guest: top, readOnly: f.module != moduleRW, tag: fmt.Sprintf("gm%d", len(f.mounts))}
	return m, true, ""
}

// autoMaxEntries is the most files, directories and links -module auto
// mounts: the kernel's copy-in costs per entry as well as per byte (a few
// ms each on a loaded host).
const autoMaxEntries = 5000

// treeOver reports whether the tree under top (everything a share would
// show: version control, build outputs) holds more than maxBytes in
// regular files or more than maxEntries entries. It stops as soon as it
// does.
func treeOver(top string, maxBytes int64, maxEntries int) bool {
	var total int64
	entries := 0
	err := filepath.WalkDir(top, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts: the share cannot read them either
		}
		if entries++; entries > maxEntries {
			return errOver
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
			if total > maxBytes {
				return errOver
			}
		}
		return nil
	})
	return err == errOver
}

var errOver = errors.New("over the budget")

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
