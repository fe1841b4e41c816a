package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"gometal.dev/gometal/internal/kernelimage"
	"gometal.dev/gometal/internal/machine"
)

var versionCommand = &command{
	name:    "version",
	summary: "print gometal's version and the kernel it boots",
	usage:   versionUsage,
	run:     versionMain,
}

func versionUsage(w io.Writer) {
	fmt.Fprint(w, `usage: gometal version [-kernel PATH]

Prints gometal's module version (or VCS revision) and the Go toolchain it
was built with, then the version and GNU build-id of the kernel that run and
exec would boot, and where that kernel comes from: -kernel, $GOMETAL_KERNEL,
built from the source checkout gometal runs in, or embedded in gometal.
`)
}

func versionMain(args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	kernel := fs.String("kernel", "", "describe this kernel ELF instead")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			versionUsage(os.Stdout)
			return nil
		}
		return usageErrorf("version", "version: %v", err)
	}
	if fs.NArg() > 0 {
		return usageErrorf("version", "version takes no arguments")
	}
	fmt.Fprintf(os.Stdout, "gometal %s %s %s/%s\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	k, err := kernelFinder(machine.Default().Arch).Locate(*kernel)
	if err != nil {
		return err
	}
	info, err := kernelimage.ReadInfo(k.Path)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "kernel %s build-id %s (%s: %s)\n", info.Version, info.BuildID, k.Source, k.Path)
	return nil
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
