package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"gometal.dev/gometal/internal/kernelimage"
)

var versionCommand = &command{
	name:    "version",
	summary: "print gometal's version and the kernels it boots",
	usage:   versionUsage,
	run:     func(args []string) error { return versionMain(args, os.Stdout) },
}

func versionUsage(w io.Writer) {
	fmt.Fprintf(w, `usage: gometal version [-kernel PATH]

Prints gometal's module version (or VCS revision) and the Go toolchain it
was built with, then, for each architecture it runs (%s), the
version and GNU build-id of the kernel run, exec and build would use, and
where that kernel comes from: $%s,
built from the source checkout gometal runs in, or embedded in gometal.
-kernel PATH describes that one kernel instead.

Flags:
`, strings.Join(archNames(), ", "), strings.Join(kernelEnvs(), " or $"))
	fs, _ := newVersionFlagSet()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// kernelEnvs are the kernel variables, one per architecture.
func kernelEnvs() []string {
	var envs []string
	for _, a := range supportedArches() {
		envs = append(envs, kernelimage.EnvFor(a.Name))
	}
	return envs
}

func newVersionFlagSet() (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var kernel string
	defineFlag(fs, "version", "kernel", &kernel)
	return fs, &kernel
}

// versionMain is `gometal version`: gometal, then every kernel it carries
// or finds (one line each), or the -kernel one.
func versionMain(args []string, w io.Writer) error {
	fs, kernel := newVersionFlagSet()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			versionUsage(w)
			return nil
		}
		return usageErrorf("version", "version: %v", err)
	}
	if fs.NArg() > 0 {
		return usageErrorf("version", "version takes no arguments")
	}
	fmt.Fprintf(w, "gometal %s %s %s/%s\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if *kernel != "" {
		return describeKernel(w, kernelimage.Kernel{Path: *kernel, Source: kernelimage.FromFlag})
	}
	for _, a := range supportedArches() {
		k, err := kernelFinder(a).Locate("")
		if err != nil {
			return fmt.Errorf("the %s kernel: %w", a.Name, err)
		}
		if err := describeKernel(w, k); err != nil {
			return err
		}
	}
	return nil
}

// describeKernel prints one kernel's line: its architecture, version,
// build-id and where it comes from.
func describeKernel(w io.Writer, k kernelimage.Kernel) error {
	arch, archErr := kernelimage.ArchOf(k.Path)
	info, err := kernelimage.ReadInfo(k.Path)
	switch {
	case err != nil && archErr == nil && !isELF(k.Path):
		// A flat Image keeps no notes: they stay in the ELF it was made from.
		fmt.Fprintf(w, "kernel %s, a kernel Image: no version notes (%s: %s)\n", arch, k.Source, k.Path)
		return nil
	case err != nil:
		return err
	case archErr != nil:
		return archErr
	}
	fmt.Fprintf(w, "kernel %s %s build-id %s (%s: %s)\n", arch, info.Version, info.BuildID, k.Source, k.Path)
	return nil
}

// isELF reports whether the file at path starts as an ELF file does.
func isELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	_, err = io.ReadFull(f, magic)
	return err == nil && string(magic) == "\x7fELF"
}

// version describes this build: the module version when installed with
// `go install gometal.dev/gometal/...@vX`, else the VCS revision for checkout builds.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "devel-" + rev
}
