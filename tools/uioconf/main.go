// Command uioconf runs the UIO conformance program (tests/progs/uioconf)
// on QEMU's edu device twice, with the same binary and the same QEMU
// machine: on gometal (gometal run -device edu) and on Debian's Linux
// kernel (internal/linuxkernel, with uio and uio_pci_generic from the same
// package, loaded by the program itself as /init). It prints both outputs
// and a side-by-side table, and fails if either run has a FAIL line.
//
//	go run ./tools/uioconf [-cores N]     (make uio-conformance)
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gometal.dev/gometal/internal/bench"
	"gometal.dev/gometal/internal/initramfs"
	"gometal.dev/gometal/internal/linuxkernel"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

func main() {
	cores := flag.Int("cores", 1, "harts for both kernels")
	flag.Parse()
	dir, err := os.MkdirTemp("", "uioconf-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	exe := filepath.Join(dir, "uioconf")
	build := exec.Command("go", "build", "-o", exe, "./tests/progs/uioconf")
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=riscv64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		log.Fatalf("build: %v\n%s", err, out)
	}
	gm := runGometal(exe, *cores)
	lx := runLinux(dir, exe, *cores)
	fmt.Printf("=== gometal ===\n%s\n=== linux ===\n%s\n", gm, lx)
	table(gm, lx)
	if !strings.Contains(gm, "PASS uioconf") || !strings.Contains(lx, "PASS uioconf") {
		os.Exit(1)
	}
}

func runGometal(exe string, cores int) string {
	cmd := exec.Command("go", "run", "./cmd/gometal", "run", "-cores", fmt.Sprint(cores), "-timeout", "120s", "-device", "edu", exe)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func runLinux(dir, exe string, cores int) string {
	cache, err := linuxkernel.DefaultCacheDir()
	if err != nil {
		log.Fatal(err)
	}
	k, err := linuxkernel.Fetch(cache, os.Stderr)
	if err != nil {
		log.Fatalf("linux kernel: %v", err)
	}
	mods, err := linuxkernel.Modules(cache, k, linuxkernel.UIOModules, os.Stderr)
	if err != nil {
		log.Fatalf("linux modules: %v", err)
	}
	var extras []initramfs.Mapping
	for _, m := range mods {
		extras = append(extras, initramfs.Mapping{Host: m, Guest: "/modules/" + filepath.Base(m)})
	}
	initrd := filepath.Join(dir, "linux.cpio")
	if err := initramfs.Create(initrd, exe, extras); err != nil {
		log.Fatal(err)
	}
	m := machine.Default()
	bin, err := qemu.Find("", m.Arch)
	if err != nil {
		log.Fatal(err)
	}
	cfg := qemu.Config{Machine: m, Binary: bin, SMP: cores, Memory: "256M", Kernel: k.Image, Initrd: initrd,
		Append: bench.LinuxCmdline(m), Extra: []string{"-device", "edu,dma_mask=0xffffffff"}}
	var out bytes.Buffer
	if _, err := qemu.Run(cfg, qemu.Stdio{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out}, qemu.RunOptions{Timeout: 180 * time.Second}); err != nil {
		log.Fatal(err)
	}
	return fmt.Sprintf("(%s, modules: %s)\n%s", k.Package, strings.Join(baseNames(mods), ", "), out.String())
}

func baseNames(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}

var lineRe = regexp.MustCompile(`^(ok|FAIL|note) ([a-z0-9-]+)(.*)$`)

// table prints each check's outcome on both systems.
func table(gm, lx string) {
	parse := func(s string) (map[string]string, []string) {
		m := map[string]string{}
		var order []string
		for _, l := range strings.Split(s, "\n") {
			if g := lineRe.FindStringSubmatch(strings.TrimSpace(l)); g != nil {
				if _, seen := m[g[2]]; !seen {
					order = append(order, g[2])
				}
				m[g[2]] = strings.TrimSpace(g[1] + g[3])
			}
		}
		return m, order
	}
	g, order := parse(gm)
	l, lorder := parse(lx)
	for _, k := range lorder {
		if _, ok := g[k]; !ok {
			order = append(order, k)
		}
	}
	w := io.Writer(os.Stdout)
	fmt.Fprintf(w, "\n%-24s %-40s %s\n", "check", "gometal", "linux")
	for _, k := range order {
		fmt.Fprintf(w, "%-24s %-40s %s\n", k, or(g[k]), or(l[k]))
	}
	for _, s := range []struct{ name, out string }{{"gometal", gm}, {"linux", lx}} {
		for _, line := range strings.Split(s.out, "\n") {
			if strings.HasPrefix(line, "latency:") {
				fmt.Fprintf(w, "%-8s %s\n", s.name, line)
			}
		}
	}
}

func or(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
