// Package linesink merges several output streams (a boot's stdout and
// stderr) into one writer a line at a time. The kernel's log and the
// program's output reach the host on different streams, each in pieces of
// any size; written straight into one buffer, a line of one could be split
// by a piece of the other — which once broke the kernel's one-line
// statistics JSON in a stress run. Each stream here holds back a partial
// line until its newline arrives (or Flush), then writes it whole.
package linesink

import (
	"bytes"
	"io"
	"sync"
)

// Sink is the shared destination.
type Sink struct {
	mu      sync.Mutex
	w       io.Writer
	streams []*Stream
}

// New returns a Sink that writes whole lines to w.
func New(w io.Writer) *Sink { return &Sink{w: w} }

// Stream is one source; it implements io.Writer.
type Stream struct {
	sink    *Sink
	pending []byte
}

// Stream returns a new source writing into the sink.
func (s *Sink) Stream() *Stream {
	st := &Stream{sink: s}
	s.mu.Lock()
	s.streams = append(s.streams, st)
	s.mu.Unlock()
	return st
}

// Write passes on every complete line of p (with what was pending before
// it) and keeps the rest.
func (st *Stream) Write(p []byte) (int, error) {
	s := st.sink
	s.mu.Lock()
	defer s.mu.Unlock()
	st.pending = append(st.pending, p...)
	i := bytes.LastIndexByte(st.pending, '\n')
	if i < 0 {
		return len(p), nil
	}
	_, err := s.w.Write(st.pending[:i+1])
	st.pending = append(st.pending[:0], st.pending[i+1:]...)
	return len(p), err
}

// Flush writes what every stream still holds (a last line without a
// newline); call it once the writers are done.
func (s *Sink) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.streams {
		if len(st.pending) > 0 {
			if _, err := s.w.Write(st.pending); err != nil {
				return err
			}
			st.pending = st.pending[:0]
		}
	}
	return nil
}
