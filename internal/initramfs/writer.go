// Package initramfs writes initramfs archives: cpio in the "newc" (070701)
// format, the one the Linux kernel unpacks. gometal's kernel reads the same
// format, so one archive boots both — which is how benchmarks compare
// gometal with Linux in the same VM.
package initramfs

import (
	"fmt"
	"io"
	"path"
	"strings"
	"time"
)

// Mode bits used in newc headers (they are the Linux st_mode bits).
const (
	ModeDir  = 0o040000
	ModeFile = 0o100000
	ModeLink = 0o120000
)

const trailerName = "TRAILER!!!"

// Writer writes a newc cpio archive. Parent directories are created
// implicitly, each once, so callers only name the files they care about.
// Close must be called to write the trailer.
type Writer struct {
	w       io.Writer
	off     int64
	nextIno uint32
	seen    map[string]bool
	err     error
	closed  bool
}

// NewWriter returns a Writer that writes the archive to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, nextIno: 1, seen: map[string]bool{}}
}

// AddFile adds a regular file with the given permission bits (e.g. 0o755).
// name may be written with or without a leading slash.
func (w *Writer) AddFile(name string, perm uint32, data []byte) error {
	return w.add(name, ModeFile|perm&0o7777, data, 0)
}

// AddFileTime is AddFile with a modification time (whole seconds since
// the epoch; zero or out of range gives the epoch, as AddFile does). Both
// kernels give the file that mtime. Archives that must be reproducible
// (gometal build) use AddFile; gometal exec packs a module with its host
// times, as tests that compare a file's mtime (net/http's ServeContent)
// expect.
func (w *Writer) AddFileTime(name string, perm uint32, data []byte, mtime time.Time) error {
	var sec uint32
	if u := mtime.Unix(); u > 0 && u <= 0xffffffff {
		sec = uint32(u)
	}
	return w.add(name, ModeFile|perm&0o7777, data, sec)
}

// AddDir adds a directory with the given permission bits.
func (w *Writer) AddDir(name string, perm uint32) error {
	return w.add(name, ModeDir|perm&0o7777, nil, 0)
}

// AddSymlink adds a symbolic link pointing at target.
func (w *Writer) AddSymlink(name, target string) error {
	return w.add(name, ModeLink|0o777, []byte(target), 0)
}

// add writes one entry after making sure its parents exist. Adding the same
// directory twice is harmless (it is skipped); adding the same file twice is
// an error, since the archive would then depend on unpacking order.
func (w *Writer) add(name string, mode uint32, data []byte, mtime uint32) error {
	if w.closed {
		return fmt.Errorf("initramfs: add %q after Close", name)
	}
	clean, err := cleanName(name)
	if err != nil {
		return err
	}
	if w.seen[clean] {
		if mode&0o170000 == ModeDir {
			return nil
		}
		return fmt.Errorf("initramfs: %q added twice", clean)
	}
	if err := w.addParents(clean); err != nil {
		return err
	}
	w.seen[clean] = true
	return w.writeEntry(clean, mode, data, mtime)
}

// addParents creates the directories above name, outermost first, because
// Linux's unpacker does not create missing parents.
func (w *Writer) addParents(name string) error {
	dir := path.Dir(name)
	if dir == "." || w.seen[dir] {
		return nil
	}
	if err := w.addParents(dir); err != nil {
		return err
	}
	w.seen[dir] = true
	return w.writeEntry(dir, ModeDir|0o755, nil, 0)
}

// cleanName turns a guest path into the archive's form: relative, no ".."
// and no empty components ("init", "etc/passwd").
func cleanName(name string) (string, error) {
	clean := strings.TrimPrefix(path.Clean("/"+name), "/")
	if clean == "" || clean == "." {
		return "", fmt.Errorf("initramfs: invalid entry name %q", name)
	}
	if len(clean) > 4095 {
		return "", fmt.Errorf("initramfs: entry name too long: %.40q...", clean)
	}
	return clean, nil
}

// Close writes the trailer entry. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if err := w.writeHeader(trailerName, 0, 0, 1, 0, 0); err != nil {
		return err
	}
	// The kernel accepts any length, but padding the archive to 512 bytes
	// keeps it friendly to block-oriented tools (GNU cpio does the same).
	return w.pad(512)
}

// writeEntry writes a header, the name and the data, each padded to 4 bytes.
func (w *Writer) writeEntry(name string, mode uint32, data []byte, mtime uint32) error {
	nlink := uint32(1)
	if mode&0o170000 == ModeDir {
		nlink = 2
	}
	ino := w.nextIno
	w.nextIno++
	if err := w.writeHeader(name, ino, mode, nlink, len(data), mtime); err != nil {
		return err
	}
	w.write(data)
	return w.pad(4)
}

// writeHeader writes the 110-byte newc header followed by the NUL-terminated
// name and its padding. Owner and device numbers are zero, and so are times
// unless AddFileTime gave one, so that archives are reproducible.
func (w *Writer) writeHeader(name string, ino, mode, nlink uint32, size int, mtime uint32) error {
	if uint64(size) > 0xffffffff {
		return fmt.Errorf("initramfs: %q is too large for cpio (%d bytes)", name, size)
	}
	hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		ino, mode, 0, 0, nlink, mtime, size, 0, 0, 0, 0, len(name)+1, 0)
	w.write([]byte(hdr))
	w.write([]byte(name))
	w.write([]byte{0})
	return w.pad(4)
}

func (w *Writer) pad(n int64) error {
	if rem := w.off % n; rem != 0 {
		w.write(make([]byte, n-rem))
	}
	return w.err
}

// write remembers the first error so that callers check once per entry.
func (w *Writer) write(p []byte) {
	if w.err != nil || len(p) == 0 {
		return
	}
	n, err := w.w.Write(p)
	w.off += int64(n)
	if err != nil {
		w.err = fmt.Errorf("initramfs: %w", err)
	}
}
