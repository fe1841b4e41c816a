package bytepattern

import (
	"bytes"
	"testing"
)

func TestWriteThenCheck(t *testing.T) {
	var b bytes.Buffer
	const n = 3*Chunk + 13
	if err := Write(&b, n, 7); err != nil {
		t.Fatal(err)
	}
	stream := b.Bytes()
	if at, err := Check(bytes.NewReader(stream), 0, n, 7); at != n || err != nil {
		t.Fatalf("Check of the stream itself: %d %v", at, err)
	}
	if at, err := Check(bytes.NewReader(stream[Chunk+8:]), Chunk+8, n, 7); at != n || err != nil {
		t.Fatalf("Check from the middle: %d %v", at, err)
	}
	stream[2*Chunk+5] ^= 1
	if at, err := Check(bytes.NewReader(stream), 0, n, 7); at != 2*Chunk+5 || err != nil {
		t.Fatalf("a flipped byte: %d %v", at, err)
	}
	if at, err := Check(bytes.NewReader(stream[:100]), 0, n, 7); at != 0 || err == nil {
		t.Fatalf("a short stream: %d %v", at, err)
	}
}
