// Package bootargs builds the gometal kernel command line.
//
// The command line is the only channel from the host to the guest program
// (QEMU -append becomes /chosen/bootargs in the device tree), so it must carry
// arbitrary bytes — spaces, quotes, newlines, non-UTF-8 — through a grammar
// the kernel can parse in a few lines of no_std Rust:
//
//   - tokens are separated by ASCII whitespace;
//   - '"' toggles quoting; the quote itself is dropped and whitespace inside
//     quotes belongs to the token;
//   - `\xHH` decodes to the byte 0xHH, and `\\` decodes to `\`.
//
// The layout follows Linux: kernel options first, then "--", then the
// program's arguments.
package bootargs

import "strings"

// Separator divides kernel options from program arguments.
const Separator = "--"

// Encode returns token written so that the kernel's grammar decodes it to
// exactly the same bytes. Quotes, backslashes and control bytes are escaped
// as \xHH; a token that is empty or contains a space is wrapped in quotes
// (otherwise it would vanish or be split).
func Encode(token string) string {
	var b strings.Builder
	quote := token == "" || strings.ContainsRune(token, ' ')
	if quote {
		b.WriteByte('"')
	}
	for i := 0; i < len(token); i++ {
		c := token[i]
		if needsEscape(c) {
			const hex = "0123456789abcdef"
			b.WriteString(`\x`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
			continue
		}
		b.WriteByte(c)
	}
	if quote {
		b.WriteByte('"')
	}
	return b.String()
}

// needsEscape reports whether c would be misread by the kernel's grammar if
// written literally. Tabs and newlines are whitespace to the kernel, so all
// control bytes are escaped; bytes >= 0x80 pass through untouched, which
// keeps UTF-8 readable in logs.
func needsEscape(c byte) bool {
	return c == '"' || c == '\\' || c < 0x20 || c == 0x7f
}

// Cmdline describes what the host tells the kernel.
type Cmdline struct {
	// Options are kernel options such as "verbose" or "sched=random",
	// written verbatim (they are known-safe words chosen by the CLI).
	Options []string
	// Env holds KEY=VALUE pairs for the program's environment; each is
	// encoded, so values may contain any byte.
	Env []string
	// Raw is appended verbatim after Env, before the separator: an escape
	// hatch for kernel options the CLI does not know about.
	Raw string
	// Args are the program's arguments (argv[1:]); each is encoded.
	Args []string
}

// String renders the command line. The separator is always present, so the
// kernel never mistakes a program argument for one of its own options, even
// when Args is empty.
func (c Cmdline) String() string {
	var parts []string
	parts = append(parts, c.Options...)
	for _, kv := range c.Env {
		parts = append(parts, Encode(kv))
	}
	if raw := strings.TrimSpace(c.Raw); raw != "" {
		parts = append(parts, raw)
	}
	parts = append(parts, Separator)
	for _, a := range c.Args {
		parts = append(parts, Encode(a))
	}
	return strings.Join(parts, " ")
}
