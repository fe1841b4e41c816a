package main

import (
	"regexp"
	"strings"
	"unicode"
)

// A doc as the checks see it: its lines with fenced code blocks blanked
// (a command in a fence is an example, not a reference), so that line
// numbers stay those of the file.
type doc struct {
	path  string   // relative to the repository root, slash-separated
	raw   []string // the file's lines
	prose []string // the same lines, fenced blocks emptied
}

func parseDoc(path, text string) *doc {
	raw := strings.Split(text, "\n")
	prose := make([]string, len(raw))
	fence := ""
	for i, l := range raw {
		t := strings.TrimLeft(l, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```"):
			fence = "```"
		case strings.HasPrefix(t, "~~~"):
			fence = "~~~"
		default:
			prose[i] = l
		}
	}
	return &doc{path: path, raw: raw, prose: prose}
}

// A code span: the text between matching backtick runs, and its line.
type span struct {
	text string
	line int // 1-based
}

// codeSpans finds inline code spans as CommonMark does: a run of n
// backticks up to the next run of exactly n, within one paragraph (a
// span may wrap onto the next line; a blank line ends it).
func (d *doc) codeSpans() []span {
	var out []span
	text := strings.Join(d.prose, "\n")
	lineAt := lineIndex(text)
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := runLen(text, i)
		end := closingRun(text, i+n, n)
		if end < 0 {
			i += n
			continue
		}
		s := strings.ReplaceAll(text[i+n:end], "\n", " ")
		out = append(out, span{text: strings.TrimSpace(s), line: lineAt(i)})
		i = end + n
	}
	return out
}

func runLen(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

func closingRun(s string, from, n int) int {
	for j := from; j < len(s); {
		if s[j] == '\n' && strings.HasPrefix(strings.TrimLeft(s[j+1:], " \t"), "\n") {
			return -1 // a blank line: the paragraph ended
		}
		if s[j] != '`' {
			j++
			continue
		}
		m := runLen(s, j)
		if m == n {
			return j
		}
		j += m
	}
	return -1
}

// lineIndex returns a function from byte offset to 1-based line number.
func lineIndex(text string) func(int) int {
	var starts []int
	starts = append(starts, 0)
	for i, c := range text {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return func(off int) int {
		lo, hi := 0, len(starts)
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if starts[mid] <= off {
				lo = mid
			} else {
				hi = mid
			}
		}
		return lo + 1
	}
}

// withoutCode is a line with its code spans blanked, for finding links.
func withoutCode(l string) string {
	b := []byte(l)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := runLen(l, i)
		end := strings.Index(l[i+n:], strings.Repeat("`", n))
		if end < 0 {
			break
		}
		for j := i; j < i+n+end+n; j++ {
			b[j] = ' '
		}
		i += n + end + n
	}
	return string(b)
}

// A link: an inline link or image, a reference definition, or an
// autolink.
type link struct {
	target string
	line   int
}

var (
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDef     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)`)
	autoLink   = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9+.-]*:[^\s>]+)>`)
)

func (d *doc) links() []link {
	var out []link
	for i, l := range d.prose {
		l = withoutCode(l)
		for _, m := range inlineLink.FindAllStringSubmatch(l, -1) {
			out = append(out, link{m[1], i + 1})
		}
		if m := refDef.FindStringSubmatch(l); m != nil {
			out = append(out, link{m[1], i + 1})
		}
		for _, m := range autoLink.FindAllStringSubmatch(l, -1) {
			out = append(out, link{m[1], i + 1})
		}
	}
	return out
}

// headings returns the doc's headings' texts and the anchors GitHub gives
// them.
func (d *doc) headings() (texts []string, anchors map[string]bool) {
	anchors = map[string]bool{}
	seen := map[string]int{}
	for _, l := range d.prose {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		t := strings.TrimLeft(l, "#")
		if t == "" || t[0] != ' ' {
			continue
		}
		t = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t), "#"))
		texts = append(texts, t)
		a := slug(t)
		if n := seen[a]; n > 0 {
			anchors[a+"-"+itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return texts, anchors
}

// slug is GitHub's anchor for a heading: lower case, punctuation other
// than '-' and '_' dropped, spaces to '-'. Code spans' backticks go too.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}
