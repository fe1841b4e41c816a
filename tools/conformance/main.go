// Command conformance runs the Go tests of standard-library packages on
// gometal and, as the reference, on Linux through user-mode QEMU
// (qemu-riscv64), and reports where they differ.
//
// Each package's test binary is built once (go test -c, linux/riscv64) and
// run both ways with the same arguments (-test.short by default, a
// per-package -test.timeout, the skip list as -test.skip) and the package's
// source directory as the working directory:
//
//	gometal exec -cores 4 pkg.test ARGS      (bare metal under qemu-system-riscv64)
//	qemu-riscv64 pkg.test ARGS               (Linux, the host kernel)
//
// Usage (make conformance runs the full list and rewrites docs/conformance.md):
//
//	go run ./tools/conformance [-pkgs strings,sort] [-parallel 2] [-doc docs/conformance.md]
//	go run ./tools/conformance -arch arm64 -pkgs quick   (linux/arm64, qemu-aarch64 as reference)
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"gometal.dev/gometal/internal/machine"
)

// Packages is the conformance list.
var Packages = []string{
	"sync", "sync/atomic", "context", "time", "runtime/debug",
	"strings", "bytes", "strconv", "sort", "slices", "maps",
	"container/heap", "container/list", "container/ring",
	"math", "math/big", "math/bits", "math/rand/v2", "math/cmplx",
	"encoding/json", "encoding/binary", "encoding/gob", "encoding/base64",
	"encoding/hex", "encoding/csv", "encoding/xml",
	"hash/crc32", "hash/fnv",
	"crypto/sha256", "crypto/sha512", "crypto/aes", "crypto/ed25519", "crypto/hmac",
	"crypto/rand",
	"compress/flate", "compress/gzip",
	"regexp", "text/template", "html/template",
	"bufio", "io", "fmt", "os", "path", "path/filepath", "errors",
	"unicode/utf8", "unicode", "archive/tar", "archive/zip",
	"text/tabwriter", "flag", "log",
	"net", "net/http", "net/http/httptest", "net/http/httputil", "net/rpc",
	"net/textproto", "net/netip", "crypto/tls", "net/smtp", "net/mail",
}

// QuickPackages is the fast subset `make test` runs (on gometal only).
var QuickPackages = []string{"strings", "sort", "errors", "container/list", "unicode/utf8", "crypto/rand"}

func main() {
	var (
		pkgs     = flag.String("pkgs", "", "comma-separated packages (default: the full list; 'quick' for the make test subset)")
		parallel = flag.Int("parallel", 1, "packages run at the same time")
		cores    = flag.Int("cores", 4, "harts for gometal")
		timeout  = flag.Duration("timeout", 10*time.Minute, "per package and system: the test binary's -test.timeout")
		short    = flag.Bool("short", true, "pass -test.short to both systems")
		work     = flag.String("work", "out/conformance", "directory for test binaries, raw logs and results.json")
		skipFile = flag.String("skip", "tools/conformance/skip.txt", "the skip list")
		doc      = flag.String("doc", "", "rewrite the generated part of this markdown file (e.g. docs/conformance.md)")
		gometal  = flag.String("gometal", "", "the gometal CLI (default: built from ./cmd/gometal)")
		linux    = flag.String("qemu-user", "auto", "the Linux reference runner: auto is qemu-riscv64 or qemu-aarch64 for -arch ('' to skip the reference)")
		archName = flag.String("arch", "riscv64", "the architecture to build and run the tests for: riscv64 or arm64")
		execFl   = flag.String("exec-flags", "", "extra gometal exec flags, space-separated")
		reuse    = flag.Bool("reuse", false, "reuse test binaries left in -work by an earlier run instead of building them")
		merge    = flag.Bool("merge", false, "merge into -work/results.json: packages not run now keep their earlier results")
		strict   = flag.Bool("strict", false, "exit 1 unless every package passes on gometal")
	)
	flag.Parse()
	list := Packages
	switch *pkgs {
	case "":
	case "quick":
		list = QuickPackages
	default:
		list = strings.Split(*pkgs, ",")
	}
	skips, err := ReadSkipFile(*skipFile)
	if err != nil {
		fatal(err)
	}
	if err := os.MkdirAll(*work, 0o755); err != nil {
		fatal(err)
	}
	workAbs, _ := filepath.Abs(*work)
	cfg := &Config{Cores: *cores, Timeout: *timeout, Short: *short, WorkDir: workAbs, Skips: skips, Reuse: *reuse,
		ExecFlags: strings.Fields(*execFl)}
	if cfg.Gometal, err = gometalBinary(*gometal, workAbs); err != nil {
		fatal(err)
	}
	if cfg.Arch, err = machine.ArchNamed(*archName); err != nil {
		fatal(fmt.Errorf("-arch %v", err))
	}
	if *linux == "auto" {
		*linux = QEMUUserFor(cfg.Arch)
	}
	if *linux != "" {
		if cfg.QEMUUser, err = exec.LookPath(*linux); err != nil {
			fatal(fmt.Errorf("%s not found (Debian: apt-get install qemu-user); -qemu-user '' skips the Linux reference", *linux))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	start := time.Now()
	results := make([]*Result, len(list))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, *parallel))
	var mu sync.Mutex
	for i, pkg := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r := RunPackage(ctx, cfg, pkg)
			results[i] = r
			mu.Lock()
			printRow(r)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	if *merge {
		results = mergeResults(filepath.Join(workAbs, "results.json"), results)
	}
	js, _ := json.MarshalIndent(results, "", "  ")
	os.WriteFile(filepath.Join(workAbs, "results.json"), js, 0o644)
	t := totals(results)
	fmt.Printf("\n%d packages in %s: %d agree with Linux, %d differ; gometal %d ok; tests on gometal: %d pass, %d fail, %d skip; on Linux: %d pass, %d fail, %d skip\n",
		len(results), elapsed.Round(time.Second), t.agree, len(results)-t.agree, t.gmOK,
		t.gm.Pass, t.gm.Fail, t.gm.Skip, t.lx.Pass, t.lx.Fail, t.lx.Skip)
	if *doc != "" {
		md := Markdown(results, cfg, skips, elapsed, strings.Join(os.Args[1:], " "))
		if err := writeGenerated(*doc, md); err != nil {
			fatal(err)
		}
		fmt.Printf("wrote %s\n", *doc)
	}
	if *strict && t.gmOK != len(results) {
		os.Exit(1)
	}
}

// mergeResults puts fresh results in place of the same packages in the
// results file, keeping the full list's order.
func mergeResults(path string, fresh []*Result) []*Result {
	var old []*Result
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &old)
	}
	byPkg := map[string]*Result{}
	for _, r := range fresh {
		byPkg[r.Pkg] = r
	}
	var out []*Result
	for _, r := range old {
		if f, ok := byPkg[r.Pkg]; ok {
			out = append(out, f)
			delete(byPkg, r.Pkg)
		} else {
			out = append(out, r)
		}
	}
	for _, r := range fresh {
		if _, ok := byPkg[r.Pkg]; ok {
			out = append(out, r)
		}
	}
	return out
}

func printRow(r *Result) {
	mark := "agree"
	if !r.Agrees() {
		mark = "DIFFER"
	}
	fmt.Printf("%-16s gometal %-7s %3d/%d/%d %7s | linux %-7s %3d/%d/%d %7s | %s %s\n", r.Pkg,
		r.Gometal.Status, r.Gometal.Pass, r.Gometal.Fail, r.Gometal.Skip, r.Gometal.Wall,
		r.Linux.Status, r.Linux.Pass, r.Linux.Fail, r.Linux.Skip, r.Linux.Wall, mark, r.Reason)
}

// gometalBinary returns explicit, or builds ./cmd/gometal into work.
func gometalBinary(explicit, work string) (string, error) {
	if explicit != "" {
		return filepath.Abs(explicit)
	}
	bin := filepath.Join(work, "gometal")
	c := exec.Command("go", "build", "-o", bin, "gometal.dev/gometal/cmd/gometal")
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("building gometal: %v", err)
	}
	return bin, nil
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "conformance: %v\n", err)
	os.Exit(2)
}
