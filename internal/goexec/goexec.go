// Package goexec holds the host-side logic of `gometal exec`, the program
// that `go test -exec` and `go run -exec` call: which environment variables
// reach the guest, how the working directory is packed into the initramfs
// at its own absolute path, how long QEMU may run given -test.timeout, and
// how GOMETAL_EXEC_FLAGS is split into flags. None of it needs QEMU, so all
// of it is unit-tested on the host.
package goexec

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gometal.dev/gometal/internal/initramfs"
)

// EnvFlags names the environment variable holding extra `gometal exec`
// flags, for use inside `go test -exec 'gometal exec'` where the command
// line belongs to the go command.
const EnvFlags = "GOMETAL_EXEC_FLAGS"

// DefaultMaxDir caps how many bytes of the working directory are packed.
// The guest's root file system lives in its RAM (512 MiB by default), and
// packing a huge tree (a module root with build outputs) would make every
// test boot slow; tests need their package directory and testdata/.
const DefaultMaxDir = 100 << 20

// TimeoutMargin is added to -test.timeout to get QEMU's limit: the test
// binary stops itself at -test.timeout and prints its goroutines, so QEMU
// is stopped only if the guest is wedged. go test itself kills the exec
// program one minute after -test.timeout; stopping QEMU first lets gometal
// say why.
const TimeoutMargin = 30 * time.Second

// Exact names forwarded from the host environment, besides the GO prefix.
var forwardNames = []string{
	"HOME", "USER", "LOGNAME", "TZ", "LANG", "LANGUAGE", "TERM", "PWD",
}

// ForwardEnv picks the host variables the guest program sees:
//
//   - every GO* variable (GODEBUG, GOTRACEBACK, GOMAXPROCS, GOGC,
//     GOMEMLIMIT, GOROOT, GOFLAGS, GO_WANT_HELPER_PROCESS, ...), because the
//     Go runtime and the testing package read them — except GOMETAL_*
//     (gometal's own settings) and GOTMPDIR (a host path);
//   - HOME, USER, LOGNAME, TZ, LANG, LANGUAGE, TERM, PWD and LC_*.
//
// PATH and TMPDIR are not forwarded: they name host directories that do
// not exist in the guest (os.TempDir falls back to /tmp, which does).
// The order of environ is kept, so results are reproducible.
func ForwardEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		key, _, ok := strings.Cut(kv, "=")
		if !ok || key == "" {
			continue
		}
		if forwarded(key) {
			out = append(out, kv)
		}
	}
	return out
}

func forwarded(key string) bool {
	switch {
	case strings.HasPrefix(key, "GOMETAL_"), key == "GOTMPDIR":
		return false
	case strings.HasPrefix(key, "GO"), strings.HasPrefix(key, "LC_"):
		return true
	}
	return slices.Contains(forwardNames, key)
}

// TestTimeout returns the value of -test.timeout (or --test.timeout) in a
// test binary's arguments, as the testing package would parse it. A
// missing, zero or malformed value reports false.
func TestTimeout(args []string) (time.Duration, bool) {
	var val string
	found := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-args" {
			break
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if name == a {
			continue // not a flag
		}
		k, v, hasValue := strings.Cut(name, "=")
		if k != "test.timeout" {
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				break
			}
			i++
			v = args[i]
		}
		val, found = v, true // the last one wins, as in package flag
	}
	if !found {
		return 0, false
	}
	d, err := time.ParseDuration(val)
	if err != nil || d <= 0 {
		return 0, false
	}
	return d, true
}

// QEMUTimeout is how long QEMU may run: explicit if non-zero, else
// -test.timeout plus TimeoutMargin, else no limit (0).
func QEMUTimeout(explicit time.Duration, args []string) time.Duration {
	if explicit > 0 {
		return explicit
	}
	if d, ok := TestTimeout(args); ok {
		return d + TimeoutMargin
	}
	return 0
}

// SplitFlags splits a GOMETAL_EXEC_FLAGS value into words the way a POSIX
// shell would (whitespace separates; '...' and "..." quote; a backslash
// escapes the next character outside single quotes), so that
// GOMETAL_EXEC_FLAGS="-cores 2 -kernel-args 'trace stats'" means what it
// looks like.
func SplitFlags(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`", s[i+1]) >= 0:
				i++
				cur.WriteByte(s[i])
			default:
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in %q", quote, s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// PackStats says what PackDir put into the archive.
type PackStats struct {
	Files, Dirs, Links int
	Bytes              int64
	SkippedFiles       int   // regular files left out by the size cap
	SkippedBytes       int64 // their total size
	Ignored            []string
}

// skipDirs are never packed: version-control metadata is large and no
// test reads it.
var skipDirs = []string{".git", ".hg", ".svn"}

// PackDir adds the tree at dir (absolute) to w at the same absolute path,
// so that a test's relative paths (testdata/x) and absolute ones both
// resolve in the guest. Symbolic links are kept as links. Regular files
// are added in lexical walk order until maxBytes is reached; the rest are
// skipped and counted, so a huge directory degrades to a warning, never a
// failure to boot. Sockets, devices and FIFOs are ignored.
func PackDir(w *initramfs.Writer, dir string, maxBytes int64) (PackStats, error) {
	var st PackStats
	if !filepath.IsAbs(dir) {
		return st, fmt.Errorf("%s: not an absolute path", dir)
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != dir && os.IsPermission(err) {
				st.Ignored = append(st.Ignored, p)
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			return err
		}
		guest := filepath.ToSlash(p)
		if p == dir {
			if guest == "/" {
				return nil // the root always exists
			}
			return w.AddDir(guest, 0o755)
		}
		if d.IsDir() && slices.Contains(skipDirs, d.Name()) {
			return fs.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			st.Ignored = append(st.Ignored, p)
			return nil
		}
		switch mode := info.Mode(); {
		case mode.IsDir():
			st.Dirs++
			return w.AddDir(guest, uint32(mode.Perm()))
		case mode&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				st.Ignored = append(st.Ignored, p)
				return nil
			}
			st.Links++
			return w.AddSymlink(guest, target)
		case mode.IsRegular():
			if st.Bytes+info.Size() > maxBytes {
				st.SkippedFiles++
				st.SkippedBytes += info.Size()
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				st.Ignored = append(st.Ignored, p)
				return nil
			}
			st.Files++
			st.Bytes += int64(len(data))
			return w.AddFile(guest, uint32(mode.Perm()), data)
		default:
			st.Ignored = append(st.Ignored, p)
			return nil
		}
	})
	return st, err
}

// Warnings renders what the user should know about a pack: skipped files
// because of the cap, unreadable or special files.
func (st PackStats) Warnings(dir string, maxBytes int64) []string {
	var out []string
	if st.SkippedFiles > 0 {
		out = append(out, fmt.Sprintf("%s is larger than %d MiB: left %d files (%.1f MiB) out of the guest's copy (raise -max-dir)",
			dir, maxBytes>>20, st.SkippedFiles, float64(st.SkippedBytes)/(1<<20)))
	}
	if n := len(st.Ignored); n > 0 {
		ex := st.Ignored[0]
		out = append(out, fmt.Sprintf("left %d unreadable or special files out of the guest's copy of %s (e.g. %s)", n, dir, ex))
	}
	return out
}

// Image describes the initramfs of one `gometal exec` run.
type Image struct {
	Program  string              // the test binary: /init
	Dir      string              // the working directory, packed at its own path
	MaxDir   int64               // cap on Dir's bytes (0: DefaultMaxDir)
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
		st, err = PackDir(w, im.Dir, maxDir)
		if err != nil {
			return st, fmt.Errorf("packing %s: %w", im.Dir, err)
		}
		if im.Warnings != nil {
			for _, msg := range st.Warnings(im.Dir, maxDir) {
				fmt.Fprintf(im.Warnings, "gometal exec: warning: %s\n", msg)
			}
		}
	}
	for _, m := range im.Extras {
		if inside(m.Guest, im.Dir) {
			continue // already packed with the directory
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

// ZoneinfoMapping returns the Go distribution's time zone database
// ($GOROOT/lib/time/zoneinfo.zip) at its own path, where the time package
// looks when the system has no /usr/share/zoneinfo — the guest has none.
// ok is false when goroot has no such file.
func ZoneinfoMapping(goroot string) (initramfs.Mapping, bool) {
	if goroot == "" {
		return initramfs.Mapping{}, false
	}
	zip := filepath.Join(goroot, "lib", "time", "zoneinfo.zip")
	abs, err := filepath.Abs(zip)
	if err != nil {
		return initramfs.Mapping{}, false
	}
	if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
		return initramfs.Mapping{}, false
	}
	return initramfs.Mapping{Host: abs, Guest: filepath.ToSlash(abs)}, true
}
