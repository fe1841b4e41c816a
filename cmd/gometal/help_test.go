package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// archNamesRe and archWords are the words true of one architecture only:
// its names, and the words of its hardware and firmware. A help sentence
// that uses one must say which architecture it is about; one that names
// every architecture may name them all (a list of machines, of QEMUs), but
// not use another's hardware words.
var (
	archNamesRe = map[string]*regexp.Regexp{
		"riscv64": regexp.MustCompile(`\briscv64\b`),
		"arm64":   regexp.MustCompile(`\barm64\b|\baarch64\b|\bAArch64\b`),
	}
	archWords = map[string]*regexp.Regexp{
		"riscv64": regexp.MustCompile(`\bRISC-V\b|(?i)\bharts?\b|\bPLIC\b|\bOpenSBI\b|\bSBI\b|\bSiFive\b|\bsifive_u\b`),
		"arm64":   regexp.MustCompile(`\bCortex\b|\bGIC(v[23])?\b|\bPL011\b|\bsemihosting\b|\bPSCI\b|\bEL[123]\b|\bEFI\b|\bBOOTAA64\b`),
	}
)

// aboutArch matches the ways a sentence says it is about one
// architecture: "arm64: ...", "(arm64)", "on arm64", "for arm64",
// "arm64's", "-arch arm64", "GOARCH=arm64", "the arm64 kernel", and the
// rule's last resort, "riscv64 (gometal's default)".
func aboutArch(arch string) *regexp.Regexp {
	a := regexp.QuoteMeta(arch)
	return regexp.MustCompile(`(^|[\s(])` + a + `[:)]|\b(?i:on|for|of) ` + a + `\b|\b` + a + `'s\b|-arch ` + a + `\b|GOARCH=` + a + `\b|\b` + a + ` kernel\b|\b` + a + ` \(gometal's default\)`)
}

// helpTexts are every help text gometal prints, by the command that prints it.
func helpTexts() map[string]string {
	texts := map[string]string{}
	var b bytes.Buffer
	overview(&b)
	texts["gometal -h"] = b.String()
	for _, c := range commands {
		b.Reset()
		c.usage(&b)
		texts["gometal "+c.name+" -h"] = b.String()
	}
	b.Reset()
	devicesHelp(&b)
	texts["gometal help devices"] = b.String()
	return texts
}

// helpSentences splits a help text into the sentences the architecture
// check reads. Prose lines join into sentences, which end at ". " or
// "; " or a blank line. A line that starts with a tab is an example or a
// list entry of its own; more-indented lines after it continue it. A
// flag's help joins its name line; any other line indented with spaces is
// a table row of its own.
func helpSentences(text string) []string {
	var units []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			units = append(units, s)
		}
		cur.Reset()
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			flush()
			continue
		case strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, "\t ") && !strings.HasPrefix(line, "\t\t"):
			flush() // an example or list entry starts
		case strings.HasPrefix(line, "  -"):
			flush() // a flag's name line; its help follows
		case strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "    \t"):
			flush() // a line of an indented table (help devices)
			units = append(units, strings.TrimSpace(line))
			continue
		}
		cur.WriteString(" " + strings.TrimSpace(line))
	}
	flush()
	var sentences []string
	for _, u := range units {
		sentences = append(sentences, regexp.MustCompile(`[.;] `).Split(u, -1)...)
	}
	return sentences
}

// TestHelpIsTrueForEveryArch: help texts describe every architecture; a
// sentence that uses a word true of one architecture only (hart, RISC-V,
// PLIC, OpenSBI, Cortex, GIC, semihosting, or the name riscv64 or arm64
// itself) names the architecture it is about, or every architecture.
func TestHelpIsTrueForEveryArch(t *testing.T) {
	for where, text := range helpTexts() {
		for _, s := range helpSentences(text) {
			all := true
			for _, a := range archNames() {
				all = all && archNamesRe[a].MatchString(s)
			}
			for _, arch := range archNames() {
				about := aboutArch(arch).MatchString(s)
				w := archWords[arch].FindString(s)
				if all && w != "" {
					// "for riscv64 or arm64 ... RISC-V": naming both is no
					// sign of being about one; only "arm64: ..." is.
					about = strings.HasPrefix(s, arch+":") || strings.HasPrefix(s, arch+"'s ")
				}
				if w == "" && !all {
					w = archNamesRe[arch].FindString(s)
				}
				if w != "" && !about {
					t.Errorf("%s: %q is true of %s only, but the sentence does not say it is about %s:\n\t%s", where, w, arch, arch, s)
				}
			}
		}
	}
}

// TestHelpSentences: the splitter the check above relies on.
func TestHelpSentences(t *testing.T) {
	text := "Prose that wraps\nonto a second line. Another; a third.\n\n\tgometal run x\n\t    continued here\n\tgometal run y\n  -flag string\n    \tits help\n  row one\n      row two\n"
	want := []string{"Prose that wraps onto a second line", "Another", "a third.", "gometal run x continued here", "gometal run y", "-flag string its help", "row one", "row two"}
	got := helpSentences(text)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("helpSentences:\n%q\nwant\n%q", got, want)
	}
	if !aboutArch("arm64").MatchString("arm64: QEMU exits") || aboutArch("riscv64").MatchString("a static Linux/riscv64 Go binary") {
		t.Error("aboutArch misreads")
	}
}
