package main

import (
	"path"
	"regexp"
	"strings"
)

// What a code span names, and so what must exist for it (the heuristic
// the package comment describes).
type kind int

const (
	other kind = iota // a command, a value, a flag, a guest path: not checked
	file              // a path in this repository
	names             // identifiers that must be words of the source
)

// Extensions of files this repository has; a span ending in one is a
// file of ours (unless the allow-list says whose it is).
var ourExt = map[string]bool{
	".rs": true, ".go": true, ".S": true, ".s": true, ".ld": true, ".toml": true,
	".md": true, ".png": true, ".c": true, ".mod": true, ".gob": true,
}

var (
	identOnly = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// A call or signature: callee(args) [-> result].
	callRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*(?:(?:::|\.)[A-Za-z_][A-Za-z0-9_]*)*)!?\(.*\)(?:\s*->.*)?$`)
	// A dotted or :: path of identifiers, with Go's (*T). and & dressing.
	qualRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:(?:::|\.)[A-Za-z_][A-Za-z0-9_]*)+$`)
	// A Go test's name, possibly with subtests: TestBoot/arith/smp2.
	testRE = regexp.MustCompile(`^(Test[A-Z0-9][A-Za-z0-9_]*)(/|$)`)
)

// classify returns what a span names: the identifiers to look up, or the
// path to find.
func classify(s string) (kind, []string) {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "#") || strings.Contains(s, "://") {
		return other, nil // flags, attributes, URLs
	}
	if m := callRE.FindStringSubmatch(s); m != nil && !strings.HasPrefix(s[len(m[1]):], "(_") {
		return names, codeWords(m[1]) // REALTIME(_COARSE) is a notation, not a call
	}
	if strings.ContainsAny(s, " \t") {
		return other, nil // a command or a snippet
	}
	if m := testRE.FindStringSubmatch(s); m != nil {
		return names, []string{m[1]}
	}
	if strings.Contains(s, "/") && !strings.Contains(s, "::") {
		return classifyPath(s)
	}
	s = strings.TrimPrefix(s, "$") // an environment variable
	s = strings.TrimPrefix(s, "&")
	s = strings.TrimSuffix(s, "!") // a macro
	s = strings.TrimSuffix(s, "()")
	if strings.HasPrefix(s, "(*") { // (*uio.Region).Read8
		s = strings.Replace(strings.TrimPrefix(s, "(*"), ")", "", 1)
	}
	if path.Ext(s) != "" && ourExt[path.Ext(s)] && !strings.Contains(s, "::") {
		return file, []string{s} // lockorder.rs, arches_test.go
	}
	if qualRE.MatchString(s) && (strings.Contains(s, "::") || anyCodeLike(codeWords(s)) || exportedSel(s)) {
		return names, codeWords(s) // mkfs.vfat, start4.elf: not code
	}
	if identOnly.MatchString(s) && codeLike(s) {
		return names, []string{s}
	}
	return other, nil
}

// codeWords splits a qualified name into the words to look up: every
// segment of a Rust path or a Go selector (pkg.Func, T.Method).
func codeWords(q string) []string {
	var ws []string
	for _, seg := range regexp.MustCompile(`::|\.`).Split(q, -1) {
		if seg != "" && seg != "crate" && seg != "self" && seg != "super" {
			ws = append(ws, seg)
		}
	}
	return ws
}

// exportedSel: a Go selector with an exported name after the first part
// (uio.Open, time.LoadLocation), where file names (mkfs.vfat) have none.
func exportedSel(s string) bool {
	for _, seg := range strings.Split(s, ".")[1:] {
		if seg != "" && seg[0] >= 'A' && seg[0] <= 'Z' {
			return true
		}
	}
	return false
}

func anyCodeLike(ws []string) bool {
	for _, w := range ws {
		if codeLike(w) {
			return true
		}
	}
	return false
}

// codeLike: a word that looks like code rather than English: snake_case
// (an underscore between letters or digits), or camelCase/CamelCase (a
// capital after a lower-case letter).
func codeLike(s string) bool {
	if strings.Trim(s, "_") != s && !strings.HasPrefix(s, "__") {
		return false
	}
	if strings.Contains(strings.Trim(s, "_"), "_") {
		return true
	}
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// classifyPath: a span with a slash. It is a path of ours if it ends in
// one of our extensions, starts at one of our top-level folders, or is a
// folder of two or more parts (arch/aarch64/); otherwise (net/http,
// linux/arm64, ../testdata, /dev/uio0) it is someone else's and not
// checked.
func classifyPath(s string) (kind, []string) {
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "$") {
		return other, nil // guest, host or home paths
	}
	s = strings.TrimRight(s, ".,:;")
	if i := strings.IndexAny(s, "#"); i >= 0 {
		s = s[:i]
	}
	p := placeholders(s)
	top, _, _ := strings.Cut(strings.TrimPrefix(p, "./"), "/")
	ours := ourExt[path.Ext(p)] || strings.HasSuffix(p, "/") && strings.Count(p, "/") > 1
	for _, d := range append(sourceDirs, "docs") {
		ours = ours || top == d
	}
	if !ours || strings.ContainsAny(p, ":@=|") {
		return other, nil
	}
	return file, []string{p}
}

// placeholders turns a doc's way of writing "any" into a glob:
// <arch> and {a,b} to *, and keeps * as is.
func placeholders(s string) string {
	s = regexp.MustCompile(`<[^>/]*>`).ReplaceAllString(s, "*")
	s = regexp.MustCompile(`\{[^}/]*\}`).ReplaceAllString(s, "*")
	return s
}
