package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"gometal.dev/gometal/internal/elfcheck"
	"gometal.dev/gometal/internal/gobuild"
	"gometal.dev/gometal/internal/machine"
)

// programKind says how `gometal run` obtains the binary from its argument.
type programKind int

const (
	prebuilt  programKind = iota // an existing file: check it and run it
	goPackage                    // a directory, .go file or import path: build it
)

// classify decides whether target names a prebuilt binary or a Go
// package, the way a user would read it: an existing file is a binary, an
// existing directory or a .go file is a package, and a path that does not
// exist is a missing file unless it reads as an import path
// (example.com/tool, gometal.dev/gometal/examples/hello).
func classify(target string) (programKind, error) {
	if strings.HasSuffix(target, ".go") {
		return goPackage, nil
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return goPackage, nil
	case err == nil && st.Mode().IsRegular():
		return prebuilt, nil
	case err == nil:
		return 0, fmt.Errorf("%s: not a regular file", target)
	case !errors.Is(err, fs.ErrNotExist):
		return 0, fmt.Errorf("%s: %v", target, errors.Unwrap(err))
	case isImportPath(target):
		return goPackage, nil
	default:
		return 0, fmt.Errorf("%s: no such file or directory", target)
	}
}

// isImportPath reports whether a nonexistent target should be handed to
// go build: it has a slash and is not a filesystem path (absolute, ./, ../).
func isImportPath(target string) bool {
	if filepath.IsAbs(target) || !strings.Contains(target, "/") {
		return false
	}
	return !strings.HasPrefix(target, "./") && !strings.HasPrefix(target, "../")
}

// programArch is the architecture the program runs as, by gometal's one
// rule (machine.ResolveArch): a prebuilt binary's own (checked here, so a
// bad binary is reported before anything else happens), else -arch
// (archFlag), -machine (machineName), $GOARCH, the host's.
func programArch(cmd, archFlag, machineName, target string, kind programKind) (*machine.Arch, error) {
	in := machine.ArchInputs{Flag: archFlag, GOARCH: os.Getenv("GOARCH"), Host: runtime.GOARCH}
	if machineName != "" {
		m, err := machine.Named(machineName)
		if err != nil {
			return nil, usageErrorf(cmd, "%s: -machine: %v", cmd, err)
		}
		in.Machine = m
	}
	if kind == prebuilt {
		arch, err := elfcheck.Check(target)
		if err != nil {
			return nil, inputError(err)
		}
		in.Binary, in.BinaryName = arch, target
	}
	arch, err := machine.ResolveArch(in)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: %v", cmd, err))
	}
	return arch, nil
}

// checkArchFlag checks that -arch, if given, names an architecture
// gometal runs: a usage mistake, found before anything is built.
func checkArchFlag(cmd, archFlag string) error {
	if archFlag == "" {
		return nil
	}
	if _, err := machine.ResolveArch(machine.ArchInputs{Flag: archFlag}); err != nil {
		return usageErrorf(cmd, "%s: %v", cmd, err)
	}
	return nil
}

// program returns the path of the executable to boot, building it for
// arch into tmp when target is a package. Input problems are
// exit-status-2 errors; a failed build exits 1 after go build has printed
// its diagnostics.
func program(ctx context.Context, target, tags, ldflags string, kind programKind, arch *machine.Arch, tmp string) (string, error) {
	if kind == prebuilt {
		return target, nil // programArch checked it
	}
	var flags []string
	if tags != "" {
		flags = append(flags, "-tags", tags)
	}
	if ldflags != "" {
		flags = append(flags, "-ldflags", ldflags)
	}
	exe, err := gobuild.Build(ctx, gobuild.Options{
		Package: target, OutDir: tmp, Flags: flags, Stderr: os.Stderr, Arch: arch,
	})
	if err != nil {
		if errors.Is(err, gobuild.ErrFailed) {
			return "", exitStatus(1) // go build already explained why
		}
		return "", err
	}
	// Catches cgo sneaking back in through GOFLAGS or -ldflags=-linkmode.
	if _, err := elfcheck.Check(exe); err != nil {
		return "", err
	}
	return exe, nil
}
