package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// SkipEntry is one line of skip.txt: tests of a package that cannot work
// on gometal by design, with the reason.
type SkipEntry struct {
	Pkg    string
	Test   string // a top-level test name, or a regexp for several
	Reason string
}

// SkipList is the parsed skip.txt.
type SkipList []SkipEntry

// ReadSkipFile parses path (see skip.txt for the format).
func ReadSkipFile(path string) (SkipList, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseSkips(f, path)
}

// ParseSkips reads lines "PACKAGE TEST REASON...", # comments and blank
// lines. Every entry needs a reason, and TEST must be a valid regexp
// without a slash (it is matched against top-level test names only).
func ParseSkips(r io.Reader, name string) (SkipList, error) {
	var list SkipList
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return nil, fmt.Errorf("%s:%d: want PACKAGE TEST REASON", name, n)
		}
		e := SkipEntry{Pkg: f[0], Test: f[1], Reason: strings.Join(f[2:], " ")}
		if strings.Contains(e.Test, "/") {
			return nil, fmt.Errorf("%s:%d: %s: only top-level tests can be skipped", name, n, e.Test)
		}
		if _, err := regexp.Compile(e.Test); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		list = append(list, e)
	}
	return list, sc.Err()
}

// Pattern returns the -test.skip value for pkg ("" if none) and the
// entries it applies.
func (l SkipList) Pattern(pkg string) (string, []string) {
	var tests []string
	for _, e := range l {
		if e.Pkg == pkg {
			tests = append(tests, e.Test)
		}
	}
	if len(tests) == 0 {
		return "", nil
	}
	return "^(?:" + strings.Join(tests, "|") + ")$", tests
}
