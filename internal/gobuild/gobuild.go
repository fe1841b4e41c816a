// Package gobuild cross-compiles a Go package for gometal with the stock Go
// toolchain: a static Linux executable for one of gometal's architectures
// (riscv64 unless told), exactly what a Linux machine would run.
package gobuild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"gometal.dev/gometal/internal/machine"
)

// TargetEnv is the environment that makes `go build` produce a gometal
// program for the default machine (riscv64). CGO must be off: there is no
// C library or dynamic loader.
var TargetEnv = machine.Default().Arch.BuildEnv()

// Options configures one build.
type Options struct {
	Package string    // package path, directory, or .go files' directory pattern
	OutDir  string    // where the executable is written
	Go      string    // the go command; "" means "go" from PATH
	Flags   []string  // extra build flags, e.g. -tags or -ldflags
	Stderr  io.Writer // receives the go command's output (compile errors)
	Dir     string    // working directory; "" means the current one
	// Arch is the architecture to build for; nil means the default
	// machine's (riscv64).
	Arch *machine.Arch
}

// ErrFailed means the go command ran and reported errors, which it has
// already printed to Options.Stderr.
var ErrFailed = errors.New("go build failed")

// Build compiles o.Package and returns the executable's path. The go
// command's own diagnostics go to o.Stderr; the returned error only says
// that the build failed.
func Build(ctx context.Context, o Options) (string, error) {
	goCmd := o.Go
	if goCmd == "" {
		goCmd = "go"
	}
	out := filepath.Join(o.OutDir, ExeName(o.Package))
	args := append([]string{"build", "-o", out}, o.Flags...)
	args = append(args, o.Package)
	cmd := exec.CommandContext(ctx, goCmd, args...)
	arch := o.Arch
	if arch == nil {
		arch = machine.Default().Arch
	}
	cmd.Env = Environ(os.Environ(), arch)
	cmd.Dir = o.Dir
	cmd.Stdout = o.Stderr // go build prints nothing useful to stdout
	cmd.Stderr = o.Stderr
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("building %s: %w", o.Package, ErrFailed)
		}
		return "", fmt.Errorf("running go build: %w", err)
	}
	return out, nil
}

// Environ returns base with arch's target settings overriding any GOOS,
// GOARCH or CGO_ENABLED the user had set for their host builds.
func Environ(base []string, arch *machine.Arch) []string {
	target := arch.BuildEnv()
	env := make([]string, 0, len(base)+len(target))
	for _, kv := range base {
		if !overridden(kv, target) {
			env = append(env, kv)
		}
	}
	return append(env, target...)
}

func overridden(kv string, target []string) bool {
	for _, t := range target {
		key := t[:strings.IndexByte(t, '=')+1]
		if strings.HasPrefix(kv, key) {
			return true
		}
	}
	return false
}

// ExeName picks the executable's name the way `go build` does: the last
// path element of the package, or the first file's name for .go files.
// The name shows up as nothing more than a file in a temp directory, but a
// meaningful one makes -v output and debugging easier.
func ExeName(pkg string) string {
	p := strings.TrimRight(filepath.ToSlash(pkg), "/")
	p = strings.TrimSuffix(p, "/...")
	if strings.HasSuffix(p, ".go") {
		return strings.TrimSuffix(path.Base(p), ".go")
	}
	base := path.Base(p)
	if base == "." || base == ".." || base == "/" || base == "" {
		if abs, err := filepath.Abs(pkg); err == nil {
			base = filepath.Base(abs)
		}
	}
	// Module major-version suffixes (example.com/tool/v2) name the tool.
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		if parent := path.Base(path.Dir(p)); parent != "." && parent != "/" {
			base = parent
		}
	}
	return base
}
