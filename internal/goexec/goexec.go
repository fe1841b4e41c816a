// Package goexec holds the host-side logic of `gometal exec`, the program
// that `go test -exec` and `go run -exec` call: which environment variables
// reach the guest, how the package directory and the rest of its module
// are packed into the initramfs at their own absolute paths (pack.go), how
// long QEMU may run given -test.timeout, and how GOMETAL_EXEC_FLAGS is
// split into flags. None of it needs QEMU, so all of it is unit-tested on
// the host.
package goexec

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gometal.dev/gometal/internal/initramfs"
)

// EnvFlags names the environment variable holding extra `gometal exec`
// flags, for use inside `go test -exec 'gometal exec'` where the command
// line belongs to the go command.
const EnvFlags = "GOMETAL_EXEC_FLAGS"

// TimeoutMargin is added to -test.timeout to get QEMU's limit: the test
// binary stops itself at -test.timeout and prints its goroutines, so QEMU
// is stopped only if the guest is wedged. go test itself kills the exec
// program one minute after -test.timeout; stopping QEMU first lets gometal
// say why.
const TimeoutMargin = 30 * time.Second

// Exact names forwarded from the host environment, besides the GO prefix.
var forwardNames = []string{
	"HOME", "USER", "LOGNAME", "TZ", "LANG", "LANGUAGE", "TERM", "PWD",
}

// ForwardEnv picks the host variables the guest program sees:
//
//   - every GO* variable (GODEBUG, GOTRACEBACK, GOMAXPROCS, GOGC,
//     GOMEMLIMIT, GOROOT, GOFLAGS, GO_WANT_HELPER_PROCESS, ...), because the
//     Go runtime and the testing package read them — except GOMETAL_*
//     (gometal's own settings) and GOTMPDIR (a host path);
//   - HOME, USER, LOGNAME, TZ, LANG, LANGUAGE, TERM, PWD and LC_*.
//
// PATH and TMPDIR are not forwarded: they name host directories that do
// not exist in the guest (os.TempDir falls back to /tmp, which does).
// The order of environ is kept, so results are reproducible.
func ForwardEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		key, _, ok := strings.Cut(kv, "=")
		if !ok || key == "" {
			continue
		}
		if forwarded(key) {
			out = append(out, kv)
		}
	}
	return out
}

func forwarded(key string) bool {
	switch {
	case strings.HasPrefix(key, "GOMETAL_"), key == "GOTMPDIR":
		return false
	case strings.HasPrefix(key, "GO"), strings.HasPrefix(key, "LC_"):
		return true
	}
	return slices.Contains(forwardNames, key)
}

// TestTimeout returns the value of -test.timeout (or --test.timeout) in a
// test binary's arguments, as the testing package would parse it. A
// missing, zero or malformed value reports false.
func TestTimeout(args []string) (time.Duration, bool) {
	var val string
	found := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-args" {
			break
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if name == a {
			continue // not a flag
		}
		k, v, hasValue := strings.Cut(name, "=")
		if k != "test.timeout" {
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				break
			}
			i++
			v = args[i]
		}
		val, found = v, true // the last one wins, as in package flag
	}
	if !found {
		return 0, false
	}
	d, err := time.ParseDuration(val)
	if err != nil || d <= 0 {
		return 0, false
	}
	return d, true
}

// QEMUTimeout is how long QEMU may run: explicit if non-zero, else
// -test.timeout plus TimeoutMargin, else no limit (0).
func QEMUTimeout(explicit time.Duration, args []string) time.Duration {
	if explicit > 0 {
		return explicit
	}
	if d, ok := TestTimeout(args); ok {
		return d + TimeoutMargin
	}
	return 0
}

// SplitFlags splits a GOMETAL_EXEC_FLAGS value into words the way a POSIX
// shell would (whitespace separates; '...' and "..." quote; a backslash
// escapes the next character outside single quotes), so that
// GOMETAL_EXEC_FLAGS="-cores 2 -kernel-args 'trace stats'" means what it
// looks like.
func SplitFlags(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`", s[i+1]) >= 0:
				i++
				cur.WriteByte(s[i])
			default:
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in %q", quote, s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// ZoneinfoMapping returns the Go distribution's time zone database
// ($GOROOT/lib/time/zoneinfo.zip) at its own path, where the time package
// looks when the system has no /usr/share/zoneinfo — the guest has none.
// ok is false when goroot has no such file.
func ZoneinfoMapping(goroot string) (initramfs.Mapping, bool) {
	if goroot == "" {
		return initramfs.Mapping{}, false
	}
	zip := filepath.Join(goroot, "lib", "time", "zoneinfo.zip")
	abs, err := filepath.Abs(zip)
	if err != nil {
		return initramfs.Mapping{}, false
	}
	if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
		return initramfs.Mapping{}, false
	}
	return initramfs.Mapping{Host: abs, Guest: filepath.ToSlash(abs)}, true
}
