package qemu

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSize parses a memory size in QEMU's -m syntax ("512M", "1G", "1.5G",
// "2048", which means MiB) and returns bytes. Checking it on the host gives a
// clear error instead of QEMU's, and lets callers reason about the size.
func ParseSize(s string) (uint64, error) {
	bad := fmt.Errorf("invalid memory size %q: want a number with an optional K, M, G or T suffix, e.g. 512M or 1G", s)
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, bad
	}
	suffixes := map[byte]uint64{'b': 1, 'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30, 't': 1 << 40}
	mult := uint64(1 << 20)    // QEMU's unit for a bare number
	last := t[len(t)-1] | 0x20 // ASCII lower case
	if last < '0' || last > '9' {
		m, ok := suffixes[last]
		if !ok {
			return 0, bad
		}
		mult, t = m, t[:len(t)-1]
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || !(n > 0) || n*float64(mult) > 1<<62 || strings.ContainsAny(t, "eExXpP_") {
		return 0, bad
	}
	return uint64(n * float64(mult)), nil
}
