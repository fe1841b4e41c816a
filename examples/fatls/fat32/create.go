package fat32

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// shortField turns "NAME.EXT" into the 11-byte directory field, or fails
// for anything that is not a plain upper-case 8.3 name.
func shortField(name string) ([11]byte, error) {
	var f [11]byte
	for i := range f {
		f[i] = ' '
	}
	base, ext, _ := strings.Cut(strings.ToUpper(name), ".")
	if base == "" || len(base) > 8 || len(ext) > 3 {
		return f, fmt.Errorf("fat32: %q is not an 8.3 name", name)
	}
	for _, r := range base + ext {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return f, fmt.Errorf("fat32: %q: only A-Z, 0-9, _ and - in 8.3 names here", name)
		}
	}
	copy(f[:], base)
	copy(f[8:], ext)
	return f, nil
}

// freeClusters finds n free clusters (first fit, in order).
func (fs *FS) freeClusters(n int) ([]uint32, error) {
	var out []uint32
	for c := uint32(2); c < fs.clusters+2 && len(out) < n; c++ {
		v, err := fs.fatEntry(c)
		if err != nil {
			return nil, err
		}
		if v == 0 {
			out = append(out, c)
		}
	}
	if len(out) < n {
		return nil, errors.New("fat32: no space left")
	}
	return out, nil
}

// Create writes a new file with an 8.3 name in the root directory.
func (fs *FS) Create(name string, data []byte) error {
	field, err := shortField(name)
	if err != nil {
		return err
	}
	if _, err := fs.Lookup(name); err == nil {
		return fmt.Errorf("fat32: %s: exists", name)
	}
	n := int((int64(len(data)) + fs.clusterSize - 1) / fs.clusterSize)
	cs, err := fs.freeClusters(n)
	if err != nil {
		return err
	}
	for i, c := range cs {
		buf := make([]byte, fs.clusterSize)
		copy(buf, data[min(int64(i)*fs.clusterSize, int64(len(data))):])
		if _, err := fs.dev.WriteAt(buf, fs.clusterOffset(c)); err != nil {
			return err
		}
		next := uint32(0x0fffffff)
		if i+1 < len(cs) {
			next = cs[i+1]
		}
		if err := fs.setFAT(c, next); err != nil {
			return err
		}
	}
	var first uint32
	if len(cs) > 0 {
		first = cs[0]
	}
	if err := fs.addRootEntry(field, first, uint32(len(data))); err != nil {
		return err
	}
	return fs.forgetFreeCount()
}

// addRootEntry puts a file entry in the first free slot of the root
// directory's existing clusters.
func (fs *FS) addRootEntry(field [11]byte, cluster, size uint32) error {
	data, cs, err := fs.readChain(fs.root)
	if err != nil {
		return err
	}
	for off := 0; off+32 <= len(data); off += 32 {
		if data[off] != 0 && data[off] != 0xe5 {
			continue
		}
		e := data[off : off+32]
		clear(e)
		copy(e, field[:])
		e[11] = 0x20 // archive
		binary.LittleEndian.PutUint16(e[20:], uint16(cluster>>16))
		binary.LittleEndian.PutUint16(e[26:], uint16(cluster))
		binary.LittleEndian.PutUint32(e[28:], size)
		ci := int64(off) / fs.clusterSize
		start := ci * fs.clusterSize
		_, err := fs.dev.WriteAt(data[start:start+fs.clusterSize], fs.clusterOffset(cs[ci]))
		return err
	}
	return errors.New("fat32: the root directory is full")
}

// forgetFreeCount marks FSInfo's free-cluster count and hint unknown, so
// other systems recount instead of trusting a stale number.
func (fs *FS) forgetFreeCount() error {
	if fs.fsinfo == 0 {
		return nil
	}
	b, base, err := fs.readSector(fs.fsinfo)
	if err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(b[0:]) != 0x41615252 {
		return nil // not an FSInfo sector
	}
	binary.LittleEndian.PutUint32(b[488:], 0xffffffff)
	binary.LittleEndian.PutUint32(b[492:], 0xffffffff)
	_, err = fs.dev.WriteAt(b, base)
	return err
}
