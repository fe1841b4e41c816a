// Package fat32 reads and writes a FAT32 file system on a block device:
// directory listings (long names included), reading files, and creating
// files with 8.3 names in the root directory. It is small on purpose, for
// examples/fatls: the Go FAT libraries that exist (go-diskfs's fat32, for
// one) bring a disk-image toolkit with many dependencies into gometal's
// module, for what is a few hundred lines here.
//
// All device accesses are whole sectors, as a block device needs.
package fat32

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
)

// Device is what the file system lives on: sector-aligned reads and writes.
type Device interface {
	io.ReaderAt
	io.WriterAt
}

// FS is an open FAT32 file system.
type FS struct {
	dev         Device
	sector      int64 // bytes per sector
	clusterSize int64
	fatStart    int64 // byte offset of the first FAT
	fatSize     int64 // bytes per FAT
	fats        int
	dataStart   int64
	root        uint32
	clusters    uint32 // data clusters; valid numbers are 2..clusters+1
	fsinfo      int64  // byte offset of the FSInfo sector (0: none)
}

// Entry is one directory entry.
type Entry struct {
	Name    string // the long name if there is one, else the 8.3 name
	Short   string // the 8.3 name, "NAME.EXT"
	Size    uint32
	Cluster uint32
	Dir     bool
}

const endOfChain = 0x0ffffff8

// Open reads the boot sector and checks it describes FAT32.
func Open(dev Device) (*FS, error) {
	bs := make([]byte, 512)
	if _, err := dev.ReadAt(bs, 0); err != nil {
		return nil, fmt.Errorf("fat32: boot sector: %w", err)
	}
	if bs[510] != 0x55 || bs[511] != 0xaa {
		return nil, errors.New("fat32: no boot signature")
	}
	le16 := func(o int) int64 { return int64(binary.LittleEndian.Uint16(bs[o:])) }
	le32 := func(o int) int64 { return int64(binary.LittleEndian.Uint32(bs[o:])) }
	fs := &FS{dev: dev, sector: le16(11), fats: int(bs[16])}
	spc := int64(bs[13])
	if fs.sector < 512 || fs.sector&(fs.sector-1) != 0 || spc == 0 || fs.fats == 0 || le16(17) != 0 || le16(22) != 0 {
		return nil, errors.New("fat32: not a FAT32 boot sector")
	}
	fs.clusterSize = spc * fs.sector
	fs.fatStart = le16(14) * fs.sector
	fs.fatSize = le32(36) * fs.sector
	fs.dataStart = fs.fatStart + int64(fs.fats)*fs.fatSize
	fs.root = uint32(le32(44))
	total := le32(32) * fs.sector
	fs.clusters = uint32(min((total-fs.dataStart)/fs.clusterSize, fs.fatSize/4-2))
	if info := le16(48); info != 0 && info != 0xffff {
		fs.fsinfo = info * fs.sector
	}
	return fs, nil
}

func (fs *FS) valid(c uint32) bool { return c >= 2 && c < fs.clusters+2 }

// readSector reads the sector that holds byte offset off.
func (fs *FS) readSector(off int64) ([]byte, int64, error) {
	base := off - off%fs.sector
	b := make([]byte, fs.sector)
	_, err := fs.dev.ReadAt(b, base)
	return b, base, err
}

func (fs *FS) fatEntry(c uint32) (uint32, error) {
	b, base, err := fs.readSector(fs.fatStart + int64(c)*4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b[fs.fatStart+int64(c)*4-base:]) & 0x0fffffff, nil
}

// setFAT writes entry c in every FAT copy.
func (fs *FS) setFAT(c, v uint32) error {
	for i := range fs.fats {
		off := fs.fatStart + int64(i)*fs.fatSize + int64(c)*4
		b, base, err := fs.readSector(off)
		if err != nil {
			return err
		}
		old := binary.LittleEndian.Uint32(b[off-base:])
		binary.LittleEndian.PutUint32(b[off-base:], old&0xf0000000|v&0x0fffffff)
		if _, err := fs.dev.WriteAt(b, base); err != nil {
			return err
		}
	}
	return nil
}

// chain is the clusters of the chain starting at c.
func (fs *FS) chain(c uint32) ([]uint32, error) {
	var out []uint32
	for fs.valid(c) {
		if len(out) > int(fs.clusters) {
			return nil, errors.New("fat32: cluster chain loops")
		}
		out = append(out, c)
		next, err := fs.fatEntry(c)
		if err != nil {
			return nil, err
		}
		c = next
	}
	return out, nil
}

func (fs *FS) clusterOffset(c uint32) int64 { return fs.dataStart + int64(c-2)*fs.clusterSize }

// readChain reads every cluster of the chain at c.
func (fs *FS) readChain(c uint32) ([]byte, []uint32, error) {
	cs, err := fs.chain(c)
	if err != nil {
		return nil, nil, err
	}
	data := make([]byte, int64(len(cs))*fs.clusterSize)
	for i, c := range cs {
		if _, err := fs.dev.ReadAt(data[int64(i)*fs.clusterSize:int64(i+1)*fs.clusterSize], fs.clusterOffset(c)); err != nil {
			return nil, nil, err
		}
	}
	return data, cs, nil
}

// ReadDir lists the directory whose first cluster is c (0: the root).
func (fs *FS) ReadDir(c uint32) ([]Entry, error) {
	if c == 0 {
		c = fs.root
	}
	data, _, err := fs.readChain(c)
	if err != nil {
		return nil, err
	}
	var out []Entry
	var long []uint16
	for off := 0; off+32 <= len(data); off += 32 {
		e := data[off : off+32]
		switch {
		case e[0] == 0:
			return out, nil
		case e[0] == 0xe5:
			long = nil
			continue
		case e[11] == 0x0f: // a long-name piece; they come last piece first
			var part []uint16
			for _, o := range []int{1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30} {
				part = append(part, binary.LittleEndian.Uint16(e[o:]))
			}
			long = append(part, long...)
			continue
		case e[11]&0x08 != 0: // volume label
			long = nil
			continue
		}
		ent := Entry{
			Short:   shortName(e[:11]),
			Size:    binary.LittleEndian.Uint32(e[28:]),
			Cluster: uint32(binary.LittleEndian.Uint16(e[20:]))<<16 | uint32(binary.LittleEndian.Uint16(e[26:])),
			Dir:     e[11]&0x10 != 0,
		}
		ent.Name = displayName(e)
		if long != nil {
			ent.Name = decodeLong(long)
		}
		long = nil
		if ent.Short != "." && ent.Short != ".." {
			out = append(out, ent)
		}
	}
	return out, nil
}

func decodeLong(u []uint16) string {
	for i, c := range u {
		if c == 0 || c == 0xffff {
			u = u[:i]
			break
		}
	}
	return string(utf16.Decode(u))
}

// displayName is the 8.3 name with the case Windows NT (and mtools)
// record in byte 12: 0x08 lower-case base, 0x10 lower-case extension.
func displayName(e []byte) string {
	field := append([]byte(nil), e[:11]...)
	if e[12]&0x08 != 0 {
		copy(field[:8], strings.ToLower(string(field[:8])))
	}
	if e[12]&0x10 != 0 {
		copy(field[8:], strings.ToLower(string(field[8:])))
	}
	return shortName(field)
}

func shortName(b []byte) string {
	base := strings.TrimRight(string(b[:8]), " ")
	ext := strings.TrimRight(string(b[8:11]), " ")
	if ext == "" {
		return base
	}
	return base + "." + ext
}

// Lookup finds name (long or 8.3, case-insensitive) in the root directory.
func (fs *FS) Lookup(name string) (Entry, error) {
	entries, err := fs.ReadDir(0)
	if err != nil {
		return Entry{}, err
	}
	for _, e := range entries {
		if strings.EqualFold(e.Name, name) || strings.EqualFold(e.Short, name) {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("fat32: %s: not found", name)
}

// ReadFile reads a file in the root directory.
func (fs *FS) ReadFile(name string) ([]byte, error) {
	e, err := fs.Lookup(name)
	if err != nil {
		return nil, err
	}
	if e.Dir {
		return nil, fmt.Errorf("fat32: %s: a directory", name)
	}
	if e.Size == 0 {
		return []byte{}, nil
	}
	data, _, err := fs.readChain(e.Cluster)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) < int64(e.Size) {
		return nil, fmt.Errorf("fat32: %s: chain shorter than the file", name)
	}
	return data[:e.Size], nil
}
