package main

// -mount HOST:GUEST[:ro|:ro,cache=loose]: a host directory the program
// sees at GUEST.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gometal.dev/gometal/internal/qemu"
)

const mountUsage = "share a host directory with the program at an absolute guest path: `HOST:GUEST[:ro]` (repeatable). " +
	"It is live (as Linux's 9p mount): every read, write and change reaches HOST at the call, and host changes are seen during the run; :ro refuses changes; " +
	":ro,cache=loose also keeps what was read (as Linux's cache=loose), for a directory nothing changes during the run; HOST is created if missing"

// guestMount is one parsed -mount.
type guestMount struct {
	host     string // absolute
	guest    string
	readOnly bool
	// cached: the kernel keeps names, attributes, listings and file
	// pages once read (`cache=loose`); only for a read-only share.
	cached bool
	tag    string
}

// parseMount checks HOST:GUEST[:ro|:ro,cache=loose]; the i-th mount gets
// tag gmI.
func parseMount(spec string, i int) (guestMount, error) {
	s, cached := strings.CutSuffix(spec, ":ro,cache=loose")
	s, ro := strings.CutSuffix(s, ":ro")
	ro = ro || cached
	host, guest, ok := strings.Cut(s, ":")
	if !ok || host == "" || guest == "" {
		return guestMount{}, fmt.Errorf("%q: want HOST:GUEST, HOST:GUEST:ro or HOST:GUEST:ro,cache=loose", spec)
	}
	if !strings.HasPrefix(guest, "/") || strings.ContainsAny(guest, ": \t\n") {
		return guestMount{}, fmt.Errorf("%q: the guest path must be absolute, without ':' or spaces", spec)
	}
	abs, err := filepath.Abs(host)
	if err != nil {
		return guestMount{}, fmt.Errorf("%q: %v", spec, err)
	}
	if !ro {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return guestMount{}, fmt.Errorf("%q: %v", spec, err)
		}
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return guestMount{}, fmt.Errorf("%q: %s is not a directory", spec, host)
	}
	return guestMount{host: abs, guest: filepath.Clean(guest), readOnly: ro, cached: cached, tag: fmt.Sprintf("gm%d", i)}, nil
}

// kernelOption tells the kernel which device to mount where.
func (m guestMount) kernelOption() string {
	opt := "mount=" + m.tag + ":" + m.guest
	if m.readOnly {
		opt += ":ro"
	}
	if m.cached && m.readOnly {
		opt += ",cache=loose"
	}
	return opt
}

func qemuMounts(ms []guestMount) []qemu.Mount {
	var out []qemu.Mount
	for _, m := range ms {
		out = append(out, qemu.Mount{Host: m.host, Tag: m.tag, ReadOnly: m.readOnly})
	}
	return out
}
