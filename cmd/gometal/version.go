package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
)

var versionCommand = &command{
	name:    "version",
	summary: "print gometal's version",
	usage: func(w io.Writer) {
		fmt.Fprint(w, "usage: gometal version\n\nPrints gometal's module version (or VCS revision) and the Go toolchain it was built with.\n")
	},
	run: func(args []string) error {
		if len(args) > 0 {
			return usageErrorf("version", "version takes no arguments")
		}
		fmt.Fprintf(os.Stdout, "gometal %s %s %s/%s\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return nil
	},
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
