package main

// How `gometal exec` shows the test its module: by default a read-only
// -mount of the module's directory (where go.mod is; the working directory
// when there is none) at its own absolute path, so that testdata/,
// ../testdata and absolute paths resolve as on Linux. Read-only because a
// test that writes into its source tree should get EROFS rather than
// change your files through a young kernel (Go tests should write to
// t.TempDir()), and cached (cache=loose: the kernel keeps what it read,
// since the module does not change while its test runs, so a test that
// reads its package from many goroutines asks the host once per file);
// -module rw is there for tests that update golden files in
// place, and then they do change the tree, as on Linux. -module pack
// copies the tree into the initramfs instead, the way gometal exec worked
// before shares existed: writes succeed and are lost, git-ignored files
// and nested modules are left out, at most -max-dir bytes.
//
// The default (auto) is ro. It used to pack a module bigger than -max-dir
// or with more than 5000 files, when the kernel read a share whole into
// memory at boot (the strings tests took 72 s with $GOROOT/src mounted);
// shares are live now (README, "Host directories"), a file costs only when
// the test touches it: with $GOROOT/src mounted, `go test -run XXX
// strings` took 3.1 s against 5.2 s packed (host load 8-9).

import (
	"fmt"
	"os"
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
	"auto (ro; pack when the module's path cannot be a mount)"

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
	ro := f.module != moduleRW
	m = guestMount{host: top, guest: top, readOnly: ro, cached: ro, tag: fmt.Sprintf("gm%d", len(f.mounts))}
	return m, true, ""
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// outputMounts makes the directories the test writes its output files
// into (goexec.OutputDirs: go test's -cpuprofile, -memprofile, -trace,
// -coverprofile and the raw coverage directory) writable at their own
// paths, so the files are where the go command reads them: the module's
// read-only share becomes read-write under -module auto when one of them
// is inside it; another directory gets a read-write share of its own,
// unless it overlaps a -mount (then the test's write fails as it would
// have). -v names each. moduleMount indexes the module's share in
// f.mounts (-1: none).
func outputMounts(f *execFlags, dirs []string, moduleMount int) {
	for _, d := range dirs {
		if i := mountHolding(f.mounts, d); i >= 0 {
			m := &f.mounts[i]
			if i == moduleMount && m.readOnly && f.module == moduleAuto {
				m.readOnly, m.cached = false, false
				if f.verbose {
					fmt.Fprintf(os.Stderr, "gometal exec: %s read-write: the test writes its output files into %s\n", m.host, d)
				}
			}
			continue
		}
		if st, err := os.Stat(d); err != nil || !st.IsDir() || strings.ContainsAny(d, ": \t\n\"\\") {
			continue
		}
		overlaps := false
		for _, m := range f.mounts {
			overlaps = overlaps || within(m.guest, d)
		}
		if overlaps {
			continue
		}
		f.mounts = append(f.mounts, guestMount{host: d, guest: d, tag: fmt.Sprintf("gm%d", len(f.mounts))})
		if f.verbose {
			fmt.Fprintf(os.Stderr, "gometal exec: mounted %s read-write for the test's output files\n", d)
		}
	}
}

// mountHolding is the index of the mount whose guest directory holds
// path, or -1.
func mountHolding(mounts []guestMount, path string) int {
	for i, m := range mounts {
		if within(path, m.guest) {
			return i
		}
	}
	return -1
}
