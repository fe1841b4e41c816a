package initramfs

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Mapping places a host file or directory at a guest path.
type Mapping struct {
	Host  string // file or directory on the host
	Guest string // absolute path in the guest
}

// ParseMapping parses the HOST:GUEST syntax of the -add flag. The split is
// at the last colon, so host paths containing colons still work as long as
// the guest path has none.
func ParseMapping(s string) (Mapping, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return Mapping{}, fmt.Errorf("%q: want HOST:GUEST, e.g. testdata:/testdata", s)
	}
	m := Mapping{Host: s[:i], Guest: s[i+1:]}
	if !strings.HasPrefix(m.Guest, "/") {
		return Mapping{}, fmt.Errorf("%q: guest path %q must be absolute", s, m.Guest)
	}
	if path.Clean(m.Guest) == "/" {
		return Mapping{}, fmt.Errorf("%q: guest path must not be /", s)
	}
	return m, nil
}

// AddHost copies a host file or directory tree into the archive at guest.
// The top-level path is followed if it is a symlink; symlinks found inside
// a directory are kept as symlinks, as cp -r would.
func (w *Writer) AddHost(host, guest string) error {
	info, err := os.Stat(host)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return w.addHostEntry(host, guest, info)
	}
	return filepath.WalkDir(host, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(host, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if p == host {
			info, err = os.Stat(p) // the root may be reached through a symlink
		}
		if err != nil {
			return err
		}
		return w.addHostEntry(p, path.Join(guest, filepath.ToSlash(rel)), info)
	})
}

// addHostEntry adds one file, directory or symlink, keeping its
// permissions and modification time.
func (w *Writer) addHostEntry(host, guest string, info fs.FileInfo) error {
	var data []byte
	var err error
	switch {
	case info.Mode().IsRegular():
		data, err = os.ReadFile(host)
	case info.Mode()&fs.ModeSymlink != 0:
		var target string
		target, err = os.Readlink(host)
		data = []byte(target)
	}
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() && !info.IsDir() && info.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("%s: cannot add %s to the initramfs", host, info.Mode().Type())
	}
	return w.AddLike(guest, info, data)
}
