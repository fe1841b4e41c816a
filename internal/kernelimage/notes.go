package kernelimage

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
)

// Info says which kernel an image is, from its ELF notes.
type Info struct {
	Version string // the kernel crate's version (note "gometal", type 1)
	BuildID string // the GNU build-id, hex (the linker's hash of the image)
}

// Note owners and types the kernel carries (kernel/src/version.rs and the
// linker's --build-id).
const (
	ntGNUBuildID      = 3
	ntGometalVersion  = 1
	ownerGNU          = "GNU"
	ownerGometal      = "gometal"
	maxNoteFieldBytes = 1 << 16
)

// ReadInfo reads the version and build-id notes of the kernel at path.
// A kernel without them (built before they existed, or not gometal's)
// is an error that says so.
func ReadInfo(path string) (Info, error) {
	if err := checkFile(path); err != nil {
		return Info{}, err
	}
	f, err := elf.Open(path)
	if err != nil {
		return Info{}, fmt.Errorf("kernel %s: not an ELF file (%v)", path, err)
	}
	defer f.Close()
	var info Info
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		data, err := s.Data()
		if err != nil {
			return Info{}, fmt.Errorf("kernel %s: section %s: %w", path, s.Name, err)
		}
		if err := parseNotes(data, f.ByteOrder, &info); err != nil {
			return Info{}, fmt.Errorf("kernel %s: section %s: %w", path, s.Name, err)
		}
	}
	if info.Version == "" {
		return Info{}, fmt.Errorf("kernel %s: no gometal version note (not a gometal kernel, or one older than the note)", path)
	}
	return info, nil
}

// parseNotes walks the notes in one SHT_NOTE section: each is namesz,
// descsz, type (4 bytes each), then the name and the descriptor, both
// padded to 4 bytes.
func parseNotes(data []byte, order binary.ByteOrder, info *Info) error {
	for len(data) > 0 {
		if len(data) < 12 {
			return errors.New("truncated note header")
		}
		namesz, descsz, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
		if namesz > maxNoteFieldBytes || descsz > maxNoteFieldBytes {
			return errors.New("note too large")
		}
		nameEnd := 12 + align4(int(namesz))
		descEnd := nameEnd + align4(int(descsz))
		if descEnd > len(data) {
			return errors.New("truncated note")
		}
		name := string(bytes.TrimRight(data[12:12+namesz], "\x00"))
		desc := data[nameEnd : nameEnd+int(descsz)]
		switch {
		case name == ownerGNU && typ == ntGNUBuildID:
			info.BuildID = hex.EncodeToString(desc)
		case name == ownerGometal && typ == ntGometalVersion:
			info.Version = string(desc)
		}
		data = data[descEnd:]
	}
	return nil
}

func align4(n int) int { return (n + 3) &^ 3 }
