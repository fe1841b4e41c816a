// Command doccheck checks that the docs (README.md, docs/*.md,
// tests/README.md and every other Markdown file but test data) say only
// what the tree bears out, and stay inside the repository:
//
//   - Every name a doc puts in backticks that looks like code is a word
//     of the source (kernel/, cmd/, internal/, tests/, tools/, uio/,
//     examples/, bench/; docs do not count). Code-like means: snake_case
//     (an underscore inside), camelCase or CamelCase, a call `name(...)`,
//     a Rust path `a::b` or a Go selector `pkg.Func` (each part looked
//     up), a Go test `TestX/sub`. Plain words, ALLCAPS constants without
//     an underscore (`EFAULT`), flags (`-cores`), commands (a span with
//     a space) and values are not looked up. A word need only appear in
//     the source, defined or used: Linux's and Go's names that the
//     kernel implements or the tests call appear there; the few that
//     appear nowhere are listed in allow.txt with whose they are, or, for
//     a design not built yet, in the doc itself with
//     `<!-- not in the tree: name1 name2; why -->`.
//   - Every path a doc names (in backticks or in prose) that is ours
//     exists: one ending in an extension this tree has (.rs, .go, .S,
//     .md, ...), or starting at one of its top-level folders, or ending in
//     '/'. It may be relative to the root, to the doc, or the tail of a
//     path in the tree (`mm/uaccess.rs`, and `core/boot/bootargs.rs` for
//     kernel/core/src/boot/bootargs.rs); `<arch>`, `{a,b}` and `*` match
//     anything. Absolute paths (/dev/uio0, /proc/...) are the guest's or
//     the host's and are not looked up.
//   - No doc points outside the repository: no link that is absolute,
//     file://, or climbs above the root, and no text naming this
//     machine's work folders (/work/..., ../shared/...). A doc that needs
//     such a fact carries it. Links to public web sites are fine.
//   - Links inside the repository reach an existing file, and a #anchor a
//     heading of the target (GitHub's anchors). A doc named with a
//     section in quotes — docs/benchmarks.md, "arm64" — in a doc, a code
//     comment or a help text must have a heading containing those words.
//
// The benchmark history (docs/benchmarks/DATE.md) records runs as they
// were written, in that day's tree's names: its links are checked, its
// names are not.
//
// `go run ./tools/doccheck` prints every problem; `make test` runs the
// same check as a test (doccheck_test.go).
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	probs, err := Run(root, filepath.Join(root, "tools/doccheck/allow.txt"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "doccheck:", err)
		os.Exit(2)
	}
	for _, p := range probs {
		fmt.Println(p)
	}
	if len(probs) > 0 {
		fmt.Fprintf(os.Stderr, "doccheck: %d problems\n", len(probs))
		os.Exit(1)
	}
}
