// Package trickle is the peer that tests/progs/waitall's MSG_WAITALL
// checks read from: in the guest over loopback TCP and AF_UNIX, and on the
// host over a connection through the network device (TestNetWaitAll). It
// sends tests/internal/bytepattern's stream (seed Seed) in small pieces
// with pauses, so that a reader gets it in many reads unless it waits for
// the whole.
package trickle

import (
	"fmt"
	"io"
	"time"

	"gometal.dev/gometal/tests/internal/bytepattern"
)

const (
	Seed = 1
	// Whole is the first part: pieces of Piece bytes, Pause apart.
	Whole = 48000
	Piece = 1000
	Pause = 5 * time.Millisecond
	// Short is sent after the reader's 't'; then nothing until its 'e',
	// so the reader's receive timeout (SO_RCVTIMEO) expires.
	Short = 96
	// Last is sent after 'e', in pieces, and then the peer closes.
	Last = 3000
)

// Serve is the peer's side of connection c; it closes c.
func Serve(c io.ReadWriteCloser) error {
	defer c.Close()
	off := 0
	send := func(n int) error {
		for end := off + n; off < end; time.Sleep(Pause) {
			b := make([]byte, min(Piece, end-off))
			bytepattern.Fill(b, Seed, uint64(off))
			if _, err := c.Write(b); err != nil {
				return fmt.Errorf("write at %d: %w", off, err)
			}
			off += len(b)
		}
		return nil
	}
	next := func(want byte) error {
		b := []byte{0}
		if _, err := io.ReadFull(c, b); err != nil || b[0] != want {
			return fmt.Errorf("waiting for %q: got %q, %v", want, b, err)
		}
		return nil
	}
	for _, step := range []func() error{
		func() error { return send(Whole) },
		func() error { return next('t') },
		func() error { return send(Short) },
		func() error { return next('e') },
		func() error { return send(Last) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}
