package goexec

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gometal.dev/gometal/internal/initramfs"
)

// DefaultMaxDir caps how many bytes of the package's module are packed.
// The guest's root file system lives in its RAM, and every test binary's
// boot carries the whole archive; the standard library's module (std,
// without its nested cmd module) is about 90 MiB and fits.
const DefaultMaxDir = 100 << 20

// skipDirs are never packed: version-control metadata is large and no
// test reads it.
var skipDirs = []string{".git", ".hg", ".svn", ".bzr", ".jj"}

// PackStats says what was put into the archive.
type PackStats struct {
	Files, Dirs, Links int
	Bytes              int64
	SkippedFiles       int    // regular files left out by the size cap
	SkippedBytes       int64  // their total size
	FirstSkipped       string // the first of them, for the warning
	StoppedEarly       bool   // the walk stopped after maxSkipped files: there are more
	Ignored            []string
}

// maxSkipped ends a walk once this many files did not fit: a go.mod at the
// top of a home directory would otherwise have gometal stat every file
// below it (module caches included) before each test binary boots.
const maxSkipped = 1000

// packer adds host trees to an archive at their own absolute paths, within
// one size budget shared by all of them.
type packer struct {
	w        *initramfs.Writer
	maxBytes int64
	st       PackStats
}

// PackDir adds the tree at dir (absolute) to w at the same absolute path,
// so that a test's relative paths (testdata/x) and absolute ones both
// resolve in the guest. Version-control directories are left out. See
// packer.walk for links, the cap and special files.
func PackDir(w *initramfs.Writer, dir string, maxBytes int64) (PackStats, error) {
	p := &packer{w: w, maxBytes: maxBytes}
	err := p.walk(dir, nil)
	return p.st, err
}

// PackModule adds the package directory dir in full (up to maxBytes), then
// the rest of the module whose go.mod is in root, so that tests reading
// ../testdata or ../../fuzz/corpus find them as on Linux. The rest of the
// module leaves out what the go command does not count as the module
// (nested modules: directories with their own go.mod), version-control
// directories, and whatever leftOut reports (build outputs: see GitIgnored).
// The package directory comes first so that, when the cap bites, what the
// test most likely reads is complete.
func PackModule(w *initramfs.Writer, dir, root string, maxBytes int64, leftOut func(string) bool) (PackStats, error) {
	p := &packer{w: w, maxBytes: maxBytes}
	if err := p.walk(dir, nil); err != nil || root == "" || root == dir {
		return p.st, err
	}
	skip := func(path string, d fs.DirEntry) bool {
		switch {
		case path == dir:
			return true // packed above
		case leftOut != nil && leftOut(path):
			return true
		case d.IsDir() && path != root:
			_, err := os.Lstat(filepath.Join(path, "go.mod"))
			return err == nil
		}
		return false
	}
	err := p.walk(root, skip)
	return p.st, err
}

// walk adds the tree at top (absolute) except what skip reports and
// version-control directories. Symbolic links are kept as links. Regular
// files are added in lexical walk order until the budget is spent; the
// rest are skipped and counted, so a huge tree degrades to a warning,
// never a failure to boot. Sockets, devices and FIFOs are ignored.
func (p *packer) walk(top string, skip func(string, fs.DirEntry) bool) error {
	if !filepath.IsAbs(top) {
		return fmt.Errorf("%s: not an absolute path", top)
	}
	st := &p.st
	return filepath.WalkDir(top, func(host string, d fs.DirEntry, err error) error {
		if err != nil {
			if host != top && os.IsPermission(err) {
				st.Ignored = append(st.Ignored, host)
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			return err
		}
		guest := filepath.ToSlash(host)
		if host == top {
			if guest == "/" {
				return nil // the root always exists
			}
			return p.w.AddDir(guest, 0o755)
		}
		if (d.IsDir() && slices.Contains(skipDirs, d.Name())) || (skip != nil && skip(host, d)) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			st.Ignored = append(st.Ignored, host)
			return nil
		}
		return p.add(host, guest, info)
	})
}

// add packs one directory, link or regular file.
func (p *packer) add(host, guest string, info fs.FileInfo) error {
	st := &p.st
	switch mode := info.Mode(); {
	case mode.IsDir():
		st.Dirs++
		return p.w.AddDir(guest, uint32(mode.Perm()))
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(host)
		if err != nil {
			st.Ignored = append(st.Ignored, host)
			return nil
		}
		st.Links++
		return p.w.AddSymlink(guest, target)
	case mode.IsRegular():
		if st.Bytes+info.Size() > p.maxBytes {
			if st.SkippedFiles == 0 {
				st.FirstSkipped = host
			}
			st.SkippedFiles++
			st.SkippedBytes += info.Size()
			if st.SkippedFiles >= maxSkipped {
				st.StoppedEarly = true
				return fs.SkipAll
			}
			return nil
		}
		data, err := os.ReadFile(host)
		if err != nil {
			st.Ignored = append(st.Ignored, host)
			return nil
		}
		st.Files++
		st.Bytes += int64(len(data))
		return p.w.AddFileTime(guest, uint32(mode.Perm()), data, info.ModTime())
	}
	st.Ignored = append(st.Ignored, host)
	return nil
}

// Warnings renders what the user should know about a pack of tree (the
// module root, or the directory): files left out by the cap, unreadable or
// special files.
func (st PackStats) Warnings(tree string, maxBytes int64) []string {
	var out []string
	if st.SkippedFiles > 0 {
		atLeast := ""
		if st.StoppedEarly {
			atLeast = "at least "
		}
		out = append(out, fmt.Sprintf("%s holds more than -max-dir %d MiB: left %s%d files (%.1f MiB, e.g. %s) out of the guest's copy; the package directory is packed first (raise -max-dir to see the rest)",
			tree, maxBytes>>20, atLeast, st.SkippedFiles, float64(st.SkippedBytes)/(1<<20), st.FirstSkipped))
	}
	if n := len(st.Ignored); n > 0 {
		out = append(out, fmt.Sprintf("left %d unreadable or special files out of the guest's copy of %s (e.g. %s)", n, tree, st.Ignored[0]))
	}
	return out
}

// ModuleDir returns the directory of the go.mod that governs dir (dir or
// its nearest ancestor holding one), or "" when there is none. A go.mod at
// the file system's root does not count: packing the whole file system
// (with /proc, whose files can block a reader) is never what a test wants.
func ModuleDir(dir string) string {
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && st.Mode().IsRegular() {
			return dir
		}
		dir = parent
	}
}

// gitTimeout bounds the one git command GitIgnored runs.
const gitTimeout = 10 * time.Second

// GitIgnored reports the paths under root that git ignores (untracked and
// matching .gitignore and the like): a module's build outputs, caches and
// scratch files, which tests do not read. It asks git once; when root is
// not in a git work tree, or there is no git, nothing is ignored.
func GitIgnored(root string) func(string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z",
		"--others", "--ignored", "--exclude-standard", "--directory")
	out, err := cmd.Output()
	if err != nil || len(out) == 0 {
		return nil
	}
	ignored := map[string]bool{}
	for _, rel := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		ignored[filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(rel, "/")))] = true
	}
	return func(p string) bool { return ignored[p] }
}

// Image describes the initramfs of one `gometal exec` run.
type Image struct {
	Program  string              // the test binary: /init
	Dir      string              // the working directory, packed at its own path
	Module   string              // its module's root, packed too ("": Dir only)
	LeftOut  func(string) bool   // paths of the module left out (nil: none)
	MaxDir   int64               // cap on the bytes of Dir and Module (0: DefaultMaxDir)
	Extras   []initramfs.Mapping // -add, and the Go time zone database
	Warnings io.Writer           // where pack warnings go (nil: dropped)
}

// Create writes the archive to archivePath.
func (im Image) Create(archivePath string) (PackStats, error) {
	var st PackStats
	data, err := os.ReadFile(im.Program)
	if err != nil {
		return st, err
	}
	f, err := os.Create(archivePath)
	if err != nil {
		return st, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := initramfs.NewWriter(bw)
	if err := w.AddFile(initramfs.InitPath, 0o755, data); err != nil {
		return st, err
	}
	maxDir := im.MaxDir
	if maxDir <= 0 {
		maxDir = DefaultMaxDir
	}
	if im.Dir != "" {
		st, err = PackModule(w, im.Dir, im.Module, maxDir, im.LeftOut)
		tree := im.Dir
		if im.Module != "" {
			tree = "module " + im.Module
		}
		if err != nil {
			return st, fmt.Errorf("packing %s: %w", tree, err)
		}
		if im.Warnings != nil {
			for _, msg := range st.Warnings(tree, maxDir) {
				fmt.Fprintf(im.Warnings, "gometal exec: warning: %s\n", msg)
			}
		}
	}
	for _, m := range im.Extras {
		if inside(m.Guest, im.Dir) || inside(m.Guest, im.Module) {
			continue // already packed with the tree
		}
		if err := w.AddHost(m.Host, m.Guest); err != nil {
			return st, fmt.Errorf("adding %s: %w", m.Host, err)
		}
	}
	if err := w.Close(); err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, err
	}
	return st, f.Close()
}

// inside reports whether guest path p is dir or below it.
func inside(p, dir string) bool {
	if dir == "" {
		return false
	}
	p, dir = path.Clean(p), path.Clean(filepath.ToSlash(dir))
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
