package bench

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// The block benchmark's image: every 4 KiB block starts with its index,
// the returned sum is the file's, and sizes that are not whole blocks are
// refused.
func TestWriteBlockImage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "img")
	sum, err := WriteBlockImage(path, 3*4096, 1)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(data)
	if len(data) != 3*4096 || sum != hex.EncodeToString(h[:]) {
		t.Fatalf("%d bytes, sum %s, want %s", len(data), sum, hex.EncodeToString(h[:]))
	}
	for i := range 3 {
		if got := binary.LittleEndian.Uint64(data[i*4096:]); got != uint64(i) {
			t.Errorf("block %d stamped %d", i, got)
		}
	}
	if _, err := WriteBlockImage(path, 4097, 1); err == nil {
		t.Error("a 4097-byte image was accepted")
	}
}
