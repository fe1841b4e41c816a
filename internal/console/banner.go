// Package console relays the guest's serial console to the user.
//
// The program's own stdin, stdout and stderr travel on virtio console
// ports (streams.go); the serial console (UART) carries the firmware and
// the kernel's messages. QEMU's bundled OpenSBI prints a ~40-line banner
// there before it starts the kernel, noise in front of the kernel's lines,
// so BannerFilter drops it (unless asked to show it) and reports when it
// has passed.
package console

import (
	"bytes"
	"io"
	"sync"
	"time"
)

const (
	bannerStart = "OpenSBI v"  // first text of OpenSBI's banner
	lastSection = "Boot HART " // the banner's last lines all start so
	maxBanner   = 64 << 10     // give up filtering after this much
	// quietPeriod of silence after a "Boot HART" line means the firmware
	// has handed over to the kernel, which may print nothing before it
	// reads input; 50 ms is far longer than OpenSBI pauses mid-banner.
	quietPeriod = 50 * time.Millisecond
)

type state int

const (
	atStart    state = iota // deciding whether a banner is coming
	inBanner                // dropping banner lines
	inBootHART              // in the final "Boot HART" lines
	passing                 // banner over: everything goes through
)

// BannerFilter is an io.Writer that forwards to W, minus the firmware
// banner. Output that does not start like OpenSBI's banner passes
// untouched, so other firmware or -bios none lose nothing.
type BannerFilter struct {
	W    io.Writer
	Show bool // forward the banner too; Done still fires at its end

	mu    sync.Mutex
	state state
	buf   []byte // undecided bytes
	seen  int    // banner bytes dropped so far
	done  chan struct{}
	once  sync.Once
	quiet *time.Timer // opens the gate when the banner has gone quiet
}

// NewBannerFilter returns a filter writing to w.
func NewBannerFilter(w io.Writer, show bool) *BannerFilter {
	return &BannerFilter{W: w, Show: show, done: make(chan struct{})}
}

// Done is closed when the banner has passed (or turned out not to exist),
// or has been followed by a quiet period.
func (f *BannerFilter) Done() <-chan struct{} { return f.done }

// Write consumes p; it reports len(p) unless the underlying writer fails.
func (f *BannerFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state == passing {
		return f.forward(p, len(p))
	}
	f.buf = append(f.buf, p...)
	out := f.scan()
	if _, err := f.forward(out, 0); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush forwards anything still undecided, for when the guest has exited.
func (f *BannerFilter) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.buf
	if f.state == inBanner && !f.Show {
		out = nil // an unfinished banner is still a banner
	}
	f.buf = nil
	f.pass()
	_, err := f.forward(out, 0)
	return err
}

// scan advances the state machine over f.buf and returns what to forward.
func (f *BannerFilter) scan() []byte {
	var out []byte
	for f.state != passing {
		if f.state == atStart {
			trimmed := bytes.TrimLeft(f.buf, "\r\n")
			if !prefixCompatible(trimmed, bannerStart) {
				f.pass()
				break
			}
			if len(trimmed) < len(bannerStart) {
				return out // need more bytes to decide
			}
			f.state = inBanner
		}
		if f.state == inBootHART && !prefixCompatible(f.buf, lastSection) {
			f.pass() // the first line after the banner belongs to the kernel
			break
		}
		nl := bytes.IndexByte(f.buf, '\n')
		if nl < 0 {
			if f.seen+len(f.buf) > maxBanner {
				f.pass() // not a banner we understand: lose nothing
				break
			}
			return out
		}
		line := f.buf[:nl+1]
		if bytes.HasPrefix(line, []byte(lastSection)) {
			f.state = inBootHART
			f.armQuietTimer()
		}
		if f.Show {
			out = append(out, line...)
		}
		f.seen += len(line)
		f.buf = f.buf[nl+1:]
	}
	out = append(out, f.buf...)
	f.buf = nil
	return out
}

// pass switches to pass-through and announces the end of the banner.
func (f *BannerFilter) pass() {
	f.state = passing
	f.openGate()
}

// openGate closes Done, once.
func (f *BannerFilter) openGate() {
	f.once.Do(func() { close(f.done) })
}

// armQuietTimer (re)starts the countdown to declaring the banner over
// while we wait for output that would prove it.
func (f *BannerFilter) armQuietTimer() {
	if f.quiet == nil {
		f.quiet = time.AfterFunc(quietPeriod, f.openGate)
		return
	}
	f.quiet.Reset(quietPeriod)
}

// forward writes b and reports n bytes consumed on success.
func (f *BannerFilter) forward(b []byte, n int) (int, error) {
	if len(b) > 0 {
		if _, err := f.W.Write(b); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// prefixCompatible reports whether b and s agree on their common length.
func prefixCompatible(b []byte, s string) bool {
	n := min(len(b), len(s))
	return string(b[:n]) == s[:n]
}
