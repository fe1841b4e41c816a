// Package bytepattern is the byte stream that tests/progs/netbulk and
// tests/netstress_test.go check each other's transfers with: word i (8
// bytes, little-endian) of the stream with seed s is splitmix64(s<<40 + i),
// so either end makes any stretch of it from its offset alone, and a wrong
// byte says where the transfer went wrong.
package bytepattern

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Chunk is how much Write and Check move at a time.
const Chunk = 64 << 10

// Fill fills b with the stream's bytes from offset off (a multiple of 8;
// a last part of b shorter than a word is left as it is).
func Fill(b []byte, seed, off uint64) {
	for i := 0; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], splitmix(seed<<40+(off+uint64(i))/8))
	}
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Write writes the stream's first n bytes to w.
func Write(w io.Writer, n, seed uint64) error {
	buf := make([]byte, Chunk)
	for off := uint64(0); off < n; {
		m := min(uint64(Chunk), n-off)
		Fill(buf, seed, off)
		if _, err := w.Write(buf[:m]); err != nil {
			return fmt.Errorf("write at %d: %w", off, err)
		}
		off += m
	}
	return nil
}

// Check reads the stream's bytes from offset from (a multiple of 8) up to
// n from r and returns the offset of the first wrong one (n when all are
// right), or the offset where a read failed and why.
func Check(r io.Reader, from, n, seed uint64) (uint64, error) {
	got, want := make([]byte, Chunk), make([]byte, Chunk)
	for off := from; off < n; {
		m := min(uint64(Chunk), n-off)
		if _, err := io.ReadFull(r, got[:m]); err != nil {
			return off, fmt.Errorf("read at %d: %w", off, err)
		}
		Fill(want[:(m+7)&^7], seed, off)
		for i := uint64(0); i < m; i++ {
			if got[i] != want[i] {
				return off + i, nil
			}
		}
		off += m
	}
	return n, nil
}
