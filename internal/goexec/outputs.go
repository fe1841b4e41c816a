package goexec

import (
	"path/filepath"
	"slices"
	"strings"
)

// outputFlags are the test binary's flags that name files it writes: the
// profiles, the execution trace and the coverage profile (relative names
// are inside -test.outputdir, which the go command sets to its own working
// directory when any of them is given).
var outputFlags = []string{
	"test.cpuprofile", "test.memprofile", "test.blockprofile", "test.mutexprofile",
	"test.trace", "test.coverprofile",
}

// OutputDirs returns the host directories a test binary will write its
// output files into, given its arguments: -test.outputdir, -test.gocoverdir
// (raw coverage data, in the go command's work directory) and the
// directories of absolute paths given to the profile flags. Each appears
// once, cleaned, in the order first named. gometal exec makes them
// writable in the guest at their own paths, so `go test -cpuprofile`,
// `-coverprofile` and `-trace` leave their files where the go command
// looks for them.
func OutputDirs(args []string) []string {
	var dirs []string
	add := func(d string) {
		if d = filepath.Clean(d); filepath.IsAbs(d) && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-args" {
			break
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if name == a {
			continue
		}
		k, v, hasValue := strings.Cut(name, "=")
		isDir := k == "test.outputdir" || k == "test.gocoverdir"
		if !isDir && !slices.Contains(outputFlags, k) {
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				break
			}
			i++
			v = args[i]
		}
		switch {
		case isDir:
			add(v)
		case filepath.IsAbs(v):
			add(filepath.Dir(v))
		}
	}
	return dirs
}
