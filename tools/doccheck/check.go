package main

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A problem: where, and what is wrong.
type problem struct {
	file string
	line int
	msg  string
}

func (p problem) String() string { return fmt.Sprintf("%s:%d: %s", p.file, p.line, p.msg) }

// An allow-list entry: a name or path that docs may mention although the
// tree has none (someone else's: Linux's, Go's, QEMU's), and why.
type allowed struct {
	name, reason string
	line         int
	used         bool
}

type checker struct {
	t     *tree
	gosrc *goSrc
	// build outputs (.gitignore's folders): a doc may name them though
	// a clean checkout has none
	outputs []string
	allow   []*allowed
	probs   []problem
}

func (c *checker) add(file string, line int, format string, a ...any) {
	c.probs = append(c.probs, problem{file, line, fmt.Sprintf(format, a...)})
}

// Run checks every doc under root against the tree, with the allow-list
// at allowPath, and returns the problems sorted by file and line.
func Run(root, allowPath string) ([]problem, error) {
	t, err := loadTree(root)
	if err != nil {
		return nil, err
	}
	c := &checker{t: t, gosrc: loadGoSrc(), outputs: ignoredDirs(root)}
	if err := c.readAllow(allowPath); err != nil {
		return nil, err
	}
	docs := map[string]*doc{}
	for _, p := range t.docs {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return nil, err
		}
		docs[p] = parseDoc(p, string(b))
	}
	for _, p := range t.docs {
		d := docs[p]
		if !isHistory(p) {
			c.checkSpans(d, localAllow(d))
			c.checkProsePaths(d)
		}
		c.checkLinks(d, docs)
		c.checkOutside(d)
		c.checkSectionRefs(d.path, inlineLink.ReplaceAllString(withoutCode(strings.Join(d.prose, "\n")), "]"), docs)
	}
	c.checkSourceRefs(docs)
	for _, a := range c.allow {
		if !a.used {
			c.add(rel(root, allowPath), a.line, "%q is allowed but no doc needs it any more: remove it", a.name)
		}
	}
	sort.SliceStable(c.probs, func(i, j int) bool {
		if c.probs[i].file != c.probs[j].file {
			return c.probs[i].file < c.probs[j].file
		}
		return c.probs[i].line < c.probs[j].line
	})
	return c.probs, nil
}

// isHistory: the benchmark history (docs/benchmarks/DATE.md) keeps each
// run as it was written, so its names are that day's tree's: only its
// links and references are checked, not that what it names still exists.
func isHistory(p string) bool { return strings.HasPrefix(p, "docs/benchmarks/") }

func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// readAllow reads "NAME  reason" lines; '#' starts a comment line. A NAME
// ending in '/' allows every path under it.
func (c *checker) readAllow(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		l := strings.TrimSpace(s.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, reason, _ := strings.Cut(l, " ")
		if strings.TrimSpace(reason) == "" {
			return fmt.Errorf("%s:%d: %q has no reason", p, n, name)
		}
		c.allow = append(c.allow, &allowed{name: name, reason: strings.TrimSpace(reason), line: n})
	}
	return s.Err()
}

func (c *checker) allowed(name string) bool {
	for _, a := range c.allow {
		if a.name == name || strings.HasSuffix(a.name, "/") && strings.HasPrefix(name, a.name) {
			a.used = true
			return true
		}
	}
	return false
}

// A doc may say that names it mentions are not in the tree on purpose (a
// design not built yet) with a comment:
//
//	<!-- not in the tree: msi_vector set_msi_masked; a design, not built -->
var localRE = regexp.MustCompile(`<!--\s*not in the tree:\s*([^;]*);\s*(\S[^>]*)-->`)

func localAllow(d *doc) map[string]bool {
	m := map[string]bool{}
	for _, l := range d.raw {
		for _, g := range localRE.FindAllStringSubmatch(l, -1) {
			for _, n := range strings.Fields(g[1]) {
				m[n] = true
			}
		}
	}
	return m
}

func (c *checker) checkSpans(d *doc, local map[string]bool) {
	for _, s := range d.codeSpans() {
		k, what := classify(s.text)
		switch k {
		case names:
			for i, w := range what {
				goName := i == 1 && len(what) == 2 && isGoPkgName(what[0]) && c.gosrc.hasName(what[0], w)
				if !c.t.words[w] && !goName && !local[w] && !c.allowed(w) {
					c.add(d.path, s.line, "`%s`: %s appears nowhere in the source", s.text, w)
				}
			}
		case file:
			if !c.pathOK(what[0], d.path) && !local[what[0]] {
				c.add(d.path, s.line, "`%s`: no such file or folder", s.text)
			}
		}
	}
}

// pathOK: p is ours, a build output, Go's, or allowed.
func (c *checker) pathOK(p, docPath string) bool {
	if c.t.findPath(p, path.Dir(docPath)) || c.gosrc.hasPath(p) {
		return true
	}
	for _, o := range c.outputs {
		if strings.HasPrefix(p+"/", o) {
			return true
		}
	}
	return c.allowed(p)
}

// ignoredDirs: the folders .gitignore names from the root (/kernel/target/).
func ignoredDirs(root string) []string {
	b, _ := os.ReadFile(filepath.Join(root, ".gitignore"))
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "/") && strings.HasSuffix(l, "/") {
			out = append(out, strings.TrimPrefix(l, "/"))
		}
	}
	return out
}

// Paths written without backticks: a word starting at one of our
// top-level folders, or a path (with a slash) ending in a source
// extension. A bare file name in prose (os_test.go) may be anyone's.
var prosePathRE = regexp.MustCompile(`(?:^|[\s(\[,;"'])((?:kernel|cmd|internal|tests|tools|uio|examples|bench|docs)/[A-Za-z0-9_./<>*{},-]*[A-Za-z0-9_/*>}]|[A-Za-z0-9_-]+(?:/[A-Za-z0-9_<>*-]+)+\.(?:rs|go|S|ld|md)\b)`)

func (c *checker) checkProsePaths(d *doc) {
	for i, l := range d.prose {
		l = withoutCode(l)
		l = inlineLink.ReplaceAllString(l, "]")
		for _, m := range prosePathRE.FindAllStringSubmatch(l, -1) {
			p := placeholders(strings.TrimRight(m[1], "."))
			if !c.pathOK(p, d.path) {
				c.add(d.path, i+1, "%s: no such file or folder", m[1])
			}
		}
	}
}

// checkLinks: a link goes to a public web page or to a file of this
// repository (and then to one of its headings, if it names one), never
// out of it.
func (c *checker) checkLinks(d *doc, docs map[string]*doc) {
	for _, l := range d.links() {
		tgt := l.target
		switch {
		case strings.HasPrefix(tgt, "http://"), strings.HasPrefix(tgt, "https://"), strings.HasPrefix(tgt, "mailto:"):
			continue
		case strings.Contains(tgt, "://") || strings.HasPrefix(tgt, "file:"):
			c.add(d.path, l.line, "link %s leaves the repository", tgt)
			continue
		case strings.HasPrefix(tgt, "/"):
			c.add(d.path, l.line, "link %s is an absolute path: link within the repository, relatively", tgt)
			continue
		}
		file, anchor, _ := strings.Cut(tgt, "#")
		target := d.path
		if file != "" {
			target = path.Join(path.Dir(d.path), file)
			if target == ".." || strings.HasPrefix(target, "../") {
				c.add(d.path, l.line, "link %s leaves the repository", tgt)
				continue
			}
			if !c.t.exists(target) {
				c.add(d.path, l.line, "link %s: no such file", tgt)
				continue
			}
		}
		if anchor != "" {
			c.checkAnchor(d.path, l.line, target, anchor, docs)
		}
	}
}

func (c *checker) checkAnchor(from string, line int, target, anchor string, docs map[string]*doc) {
	td := docs[target]
	if td == nil {
		c.add(from, line, "link to #%s in %s, which is not a doc", anchor, target)
		return
	}
	if _, anchors := td.headings(); !anchors[anchor] && !htmlAnchor(td, anchor) {
		c.add(from, line, "link to %s#%s: no such heading", target, anchor)
	}
}

func htmlAnchor(d *doc, a string) bool {
	for _, l := range d.raw {
		if strings.Contains(l, `id="`+a+`"`) || strings.Contains(l, `name="`+a+`"`) {
			return true
		}
	}
	return false
}

// Text that points outside the repository even without a link: this
// machine's work folders, a sibling checkout, a file URL.
var outsideRE = regexp.MustCompile(`(?:^|[^.\w])(/work/|file://|\.\./shared\b|/home/)`)

func (c *checker) checkOutside(d *doc) {
	for i, l := range d.raw {
		if m := outsideRE.FindStringSubmatch(l); m != nil {
			c.add(d.path, i+1, "%q points outside the repository: carry the fact here instead", m[1])
		}
	}
}

// A doc named with one of its sections, as docs and code comments do:
// docs/benchmarks.md, "arm64" or docs/benchmarks.md ("Files") or
// docs/boards.md#the-image. The file must exist and have a heading (or a
// list item's bold lead-in) containing the quoted words. In docs a bare
// name (porting.md) is relative to the doc; in code, only root-relative
// names count (a comment's x.md may be anything).
var (
	sectionRefRE = regexp.MustCompile(`(?:^|[^\w/.-])((?:docs|tests|tools|kernel|internal|cmd)/[\w./-]*\.md|README\.md)\b(#[\w-]+)?(?:,\s+|\s+\()?(?:["“]([A-Za-z0-9][^"”(){};]{0,79})["”])?`)
	bareRefRE    = regexp.MustCompile(`(?:^|[^\w/.-])([\w-]+\.md)\b(#[\w-]+)?(?:,\s+|\s+\()?(?:["“]([A-Za-z0-9][^"”(){};]{0,79})["”])?`)
)

func (c *checker) checkSectionRefs(from, text string, docs map[string]*doc) {
	c.sectionRefs(from, text, docs, sectionRefRE)
	if strings.HasSuffix(from, ".md") {
		c.sectionRefs(from, text, docs, bareRefRE)
	}
}

func (c *checker) sectionRefs(from, text string, docs map[string]*doc, re *regexp.Regexp) {
	lineAt := lineIndex(text)
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		ref := text[m[2]:m[3]]
		line := lineAt(m[2])
		target := ref
		if local := path.Join(path.Dir(from), ref); !c.t.files[ref] && c.t.files[local] {
			target = local
		}
		td := docs[target]
		if td == nil {
			if !c.t.files[target] && !c.allowed(ref) {
				c.add(from, line, "%s: no such doc", ref)
			}
			continue
		}
		if m[4] >= 0 {
			c.checkAnchor(from, line, target, text[m[4]+1:m[5]], docs)
		}
		if m[6] >= 0 {
			q := strings.Join(strings.Fields(text[m[6]:m[7]]), " ")
			if !headingHas(td, q) {
				c.add(from, line, "%s, %q: no heading there says that", ref, q)
			}
		}
	}
}

var boldLead = regexp.MustCompile(`^\s*(?:[-*]|\d+\.)\s+\*\*([^*]+)\*\*`)

func headingHas(d *doc, q string) bool {
	texts, _ := d.headings()
	for _, l := range d.prose {
		if m := boldLead.FindStringSubmatch(l); m != nil {
			texts = append(texts, m[1])
		}
	}
	q = strings.ToLower(q)
	for _, t := range texts {
		if strings.Contains(strings.ToLower(t), q) {
			return true
		}
	}
	return false
}

// checkSourceRefs: code comments and help texts name docs and their
// sections too (`see docs/benchmarks.md, "Files"`).
func (c *checker) checkSourceRefs(docs map[string]*doc) {
	var paths []string
	for f := range c.t.files {
		// (this checker's own tests write docs that are wrong on purpose)
		if isSource(f) && strings.Contains(f, ".") && !strings.HasPrefix(f, "tools/doccheck/") {
			paths = append(paths, f)
		}
	}
	sort.Strings(paths)
	for _, f := range paths {
		b, err := os.ReadFile(filepath.Join(c.t.root, f))
		if err != nil || !strings.Contains(string(b), ".md") {
			continue
		}
		c.checkSectionRefs(f, string(b), docs)
	}
}
