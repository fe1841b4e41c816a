package main

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// The tree as the checks see it: every file and folder (build outputs
// and hidden folders left out), the docs, and the words of the source.
type tree struct {
	root  string
	files map[string]bool // slash paths relative to root
	dirs  map[string]bool
	docs  []string
	words map[string]bool // identifiers in source files, docs excluded
}

// The folders whose files are "the tree's source" for names.
var sourceDirs = []string{"kernel", "cmd", "internal", "tests", "tools", "uio", "examples", "bench"}

// Build outputs and the like: never indexed.
var skipDirs = map[string]bool{"target": true, "node_modules": true, "stress-logs": true, "build": true, "out": true}

// Files whose words count as source (text, not binaries or images).
var sourceExt = map[string]bool{
	".go": true, ".rs": true, ".S": true, ".s": true, ".ld": true, ".toml": true,
	".c": true, ".h": true, ".txt": true, ".mod": true, ".sh": true, ".py": true,
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

func loadTree(root string) (*tree, error) {
	t := &tree{root: root, files: map[string]bool{}, dirs: map[string]bool{}, words: map[string]bool{}}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if rel != "." && (strings.HasPrefix(e.Name(), ".") || skipDirs[e.Name()]) {
				return filepath.SkipDir
			}
			t.dirs[rel] = true
			return nil
		}
		t.files[rel] = true
		if isDoc(rel) {
			t.docs = append(t.docs, rel)
		}
		// (this checker's own files are left out: its allow-list and test
		// data name on purpose what the tree lacks)
		if isSource(rel) && !strings.HasPrefix(rel, "tools/doccheck/") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, w := range identRE.FindAllString(string(b), -1) {
				t.words[w] = true
			}
		}
		return nil
	})
	return t, err
}

// isDoc: every Markdown file, except test data (a test's input, not a
// page anyone reads).
func isDoc(rel string) bool {
	return strings.HasSuffix(rel, ".md") && !strings.Contains("/"+rel, "/testdata/")
}

func isSource(rel string) bool {
	if rel == "Makefile" || rel == "rust-toolchain.toml" {
		return true
	}
	top, _, _ := strings.Cut(rel, "/")
	for _, d := range sourceDirs {
		if top == d {
			return sourceExt[path.Ext(rel)] || path.Base(rel) == "Makefile"
		}
	}
	return false
}

// findPath says whether p (relative, slash-separated, possibly with glob
// characters) names a file or folder: relative to the root, relative to
// the doc's folder, as the tail of a path in the tree, or as the tail of
// one with its "src/" left out (`core/boot/bootargs.rs` for
// kernel/core/src/boot/bootargs.rs, as Rust readers write it). A name without
// an extension also matches a Rust module file (`drivers/virtio/console`
// for console.rs or console/mod.rs).
func (t *tree) findPath(p, docDir string) bool {
	p = strings.TrimSuffix(p, "/")
	cands := []string{p}
	if path.Ext(p) == "" {
		cands = append(cands, p+".rs", p+"/mod.rs", p+".go")
	}
	for _, c := range cands {
		if t.exists(c) || t.exists(path.Join(docDir, c)) {
			return true
		}
		for f := range t.files {
			if tailMatch(f, c) || tailMatch(strings.Replace(f, "/src/", "/", 1), c) {
				return true
			}
		}
		for d := range t.dirs {
			if tailMatch(d, c) || tailMatch(strings.Replace(d, "/src/", "/", 1), c) {
				return true
			}
		}
	}
	return false
}

func (t *tree) exists(p string) bool {
	p = path.Clean(p)
	if t.files[p] || t.dirs[p] {
		return true
	}
	if !strings.ContainsAny(p, "*?[") {
		return false
	}
	for f := range t.files {
		if ok, _ := path.Match(p, f); ok {
			return true
		}
	}
	for d := range t.dirs {
		if ok, _ := path.Match(p, d); ok {
			return true
		}
	}
	return false
}

// tailMatch: the last segments of full are pattern's segments.
func tailMatch(full, pattern string) bool {
	fs := strings.Split(full, "/")
	ps := strings.Split(pattern, "/")
	if len(ps) > len(fs) {
		return false
	}
	fs = fs[len(fs)-len(ps):]
	for i := range ps {
		if ok, _ := path.Match(ps[i], fs[i]); !ok {
			return false
		}
	}
	return true
}
