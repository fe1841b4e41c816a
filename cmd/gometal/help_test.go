package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// archWords are the words true of one architecture only; a help sentence
// that uses one must say which architecture it is about.
var archWords = map[string]*regexp.Regexp{
	"riscv64": regexp.MustCompile(`\briscv64\b|\bRISC-V\b|(?i)\bharts?\b|\bPLIC\b|\bOpenSBI\b|\bSBI\b|\bSiFive\b|\bsifive_u\b`),
	"arm64":   regexp.MustCompile(`\barm64\b|\baarch64\b|\bAArch64\b|\bCortex\b|\bGIC(v[23])?\b|\bPL011\b|\bsemihosting\b|\bPSCI\b|\bEL[123]\b|\bEFI\b|\bBOOTAA64\b`),
}

// aboutArch matches the ways a sentence says it is about one
// architecture: "arm64: ...", "(arm64)", "on arm64", "for arm64",
// "arm64's", "-arch arm64", "GOARCH=arm64", "arm64 programs", and the
// rule's last resort, "riscv64 (gometal's default)".
func aboutArch(arch string) *regexp.Regexp {
	a := regexp.QuoteMeta(arch)
	return regexp.MustCompile(`(^|[\s(])` + a + `[:)]|\b(?i:on|for|of) ` + a + `\b|\b` + a + `'s\b|-arch ` + a + `\b|GOARCH=` + a + `\b|\b` + a + ` (programs?|images?|kernel|ones?)\b|\b` + a + ` \(gometal's default\)`)
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
// list entry of its own; more-indented lines after it continue it.
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
	names := archNames()
	for where, text := range helpTexts() {
		for _, s := range helpSentences(text) {
			all := true
			for _, a := range names {
				all = all && regexp.MustCompile(`\b`+a+`\b`).MatchString(s)
			}
			if all {
				continue
			}
			for arch, words := range archWords {
				if w := words.FindString(s); w != "" && !aboutArch(arch).MatchString(s) {
					t.Errorf("%s: %q is true of %s only, but the sentence does not say it is about %s:\n\t%s", where, w, arch, arch, s)
				}
			}
		}
	}
}

// TestHelpSentences: the splitter the check above relies on.
func TestHelpSentences(t *testing.T) {
	text := "Prose that wraps\nonto a second line. Another; a third.\n\n\tgometal run x\n\t    continued here\n\tgometal run y\n  -flag string\n    \tits help\n"
	want := []string{"Prose that wraps onto a second line", "Another", "a third.", "gometal run x continued here", "gometal run y", "-flag string its help"}
	got := helpSentences(text)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("helpSentences:\n%q\nwant\n%q", got, want)
	}
	if !aboutArch("arm64").MatchString("arm64: QEMU exits") || aboutArch("riscv64").MatchString("a static Linux/riscv64 Go binary") {
		t.Error("aboutArch misreads")
	}
}
