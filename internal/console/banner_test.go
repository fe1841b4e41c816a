package console

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// banner is OpenSBI v1.1's banner as QEMU 7.2 prints it (abridged).
const banner = "\r\nOpenSBI v1.1\r\n" +
	"   ____                    _____ ____ _____\r\n" +
	"  / __ \\                  / ____|  _ \\_   _|\r\n" +
	"\r\n" +
	"Platform Name             : riscv-virtio,qemu\r\n" +
	"Platform HART Count       : 4\r\n" +
	"\r\n" +
	"Domain0 Name              : root\r\n" +
	"\r\n" +
	"Boot HART ID              : 0\r\n" +
	"Boot HART ISA Extensions  : time,sstc\r\n" +
	"Boot HART MEDELEG         : 0x0000000000f0b509\r\n"

// feed writes s to a filter in chunks of n bytes and returns the output.
func feed(t *testing.T, s string, n int, show bool) (string, bool) {
	t.Helper()
	var out bytes.Buffer
	f := NewBannerFilter(&out, show)
	for i := 0; i < len(s); i += n {
		if _, err := f.Write([]byte(s[i:min(i+n, len(s))])); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.Done():
		return out.String(), true
	default:
		return out.String(), false
	}
}

func TestBannerDropped(t *testing.T) {
	for _, program := range []string{"hello\nworld\n", "> ", "B", "Boot", "x"} {
		for _, n := range []int{1, 3, 7, len(banner) + len(program)} {
			got, done := feed(t, banner+program, n, false)
			if got != program || !done {
				t.Errorf("chunk %d, program %q: got %q, done=%v", n, program, got, done)
			}
		}
	}
}

func TestBannerShown(t *testing.T) {
	in := banner + "hello\n"
	if got, done := feed(t, in, 5, true); got != in || !done {
		t.Errorf("Show: got %q, done=%v", got, done)
	}
}

func TestNoBannerPassesThrough(t *testing.T) {
	for _, in := range []string{"hello\n", "\r\nkernel: boot\n", "Open", "O", "\n"} {
		for _, n := range []int{1, 4, 100} {
			if got, _ := feed(t, in, n, false); got != in {
				t.Errorf("input %q chunk %d: got %q", in, n, got)
			}
		}
	}
}

func TestDoneWhenBannerEnds(t *testing.T) {
	var out bytes.Buffer
	f := NewBannerFilter(&out, false)
	f.Write([]byte(banner))
	select {
	case <-f.Done():
		t.Fatal("Done before any kernel output could follow the banner")
	default:
	}
	f.Write([]byte("k"))
	select {
	case <-f.Done():
	default:
		t.Fatal("Done not closed after the banner")
	}
}

func TestUnfinishedBannerStaysHidden(t *testing.T) {
	if got, _ := feed(t, banner[:40], 3, false); got != "" {
		t.Errorf("got %q from a cut-off banner", got)
	}
}

func TestRunawayBannerFlushed(t *testing.T) {
	in := "OpenSBI v9\r\n" + strings.Repeat("x", maxBanner+10)
	if got, _ := feed(t, in, 4096, false); !strings.HasSuffix(got, "xxx") {
		t.Errorf("lost output of an unrecognised banner: %d bytes", len(got))
	}
}

func TestDoneAfterQuietPeriod(t *testing.T) {
	f := NewBannerFilter(&bytes.Buffer{}, false)
	f.Write([]byte(banner))
	select {
	case <-f.Done():
	case <-time.After(10 * quietPeriod):
		t.Fatal("Done not closed after the banner went quiet")
	}
}
