package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// Go's own sources, for the names a doc takes from them
// (runtime/defs_linux_arm64.go, cpu.HWCap, os.FindProcess): looked up in
// $(go env GOROOT)/src, so they are checked too, against the Go that
// builds this tree.
type goSrc struct {
	root  string              // GOROOT/src; "" if there is no Go
	pkgs  map[string][]string // a package's last element -> its folders
	words map[string]map[string]bool
}

func loadGoSrc() *goSrc {
	g := &goSrc{pkgs: map[string][]string{}, words: map[string]map[string]bool{}}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return g
	}
	g.root = filepath.Join(strings.TrimSpace(string(out)), "src")
	filepath.WalkDir(g.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		if n := e.Name(); n == "testdata" || n == "vendor" || n == "cmd" && filepath.Dir(p) == g.root {
			return filepath.SkipDir
		}
		r, _ := filepath.Rel(g.root, p)
		g.pkgs[e.Name()] = append(g.pkgs[e.Name()], filepath.ToSlash(r))
		return nil
	})
	return g
}

// hasPath: p (a glob) is a file or folder of Go's sources.
func (g *goSrc) hasPath(p string) bool {
	if g.root == "" {
		return false
	}
	m, _ := filepath.Glob(filepath.Join(g.root, filepath.FromSlash(strings.TrimSuffix(p, "/"))))
	return len(m) > 0
}

// hasName: name is a word of a Go package whose last element is pkg.
func (g *goSrc) hasName(pkg, name string) bool {
	for _, dir := range g.pkgs[pkg] {
		w := g.words[dir]
		if w == nil {
			w = map[string]bool{}
			fs, _ := filepath.Glob(filepath.Join(g.root, dir, "*.go"))
			for _, f := range fs {
				b, _ := os.ReadFile(f)
				for _, x := range identRE.FindAllString(string(b), -1) {
					w[x] = true
				}
			}
			g.words[dir] = w
		}
		if w[name] {
			return true
		}
	}
	return false
}

func isGoPkgName(s string) bool { return s != "" && strings.ToLower(s) == s && path.Base(s) == s }
