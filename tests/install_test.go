package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// installTimeout bounds the whole user flow: an install, a test build and
// two boots.
const installTimeout = 5 * time.Minute

// userModule is a fresh module as a user would have it: a program, and a
// package whose tests read the module's ../testdata (part of the module
// that `gometal exec` must make visible) and run in their own directory.
var userModule = map[string]string{
	"go.mod":                "module example.com/userproj\n\ngo 1.26\n",
	"main.go":               "package main\n\nimport (\n\t\"fmt\"\n\t\"runtime\"\n)\n\nfunc main() { fmt.Println(\"hello from a fresh module on\", runtime.GOOS+\"/\"+runtime.GOARCH) }\n",
	"testdata/greeting.txt": "hi from ../testdata\n",
	"lib/lib.go":            "// Package lib reads a file at the module's root.\npackage lib\n\nimport \"os\"\n\n// Greeting is the module's testdata/greeting.txt.\nfunc Greeting() (string, error) {\n\tb, err := os.ReadFile(\"../testdata/greeting.txt\")\n\treturn string(b), err\n}\n",
	"lib/lib_test.go": `package lib

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGreeting(t *testing.T) {
	got, err := Greeting()
	if err != nil || got != "hi from ../testdata\n" {
		t.Fatalf("Greeting() = %q, %v", got, err)
	}
}

func TestRunsInPackageDir(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil || filepath.Base(wd) != "lib" {
		t.Fatalf("working directory %q, %v; want the package directory", wd, err)
	}
}

// The whole module directory is there, as on Linux: gometal exec mounts
// it (a nested module is not part of this one, but its files are in the
// directory).
func TestModuleDirectoryShown(t *testing.T) {
	for _, p := range []string{"../go.mod", "../nested/go.mod"} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
}
`,
	"nested/go.mod": "module example.com/userproj/nested\n\ngo 1.26\n",
}

// TestInstallAndUseAnywhere does what the README tells a new user to do:
// install gometal into an empty GOBIN from this checkout, then, in a fresh
// module in a temporary directory, with no GOMETAL_* variable, a home
// directory of its own and no way back to the checkout, run the module's
// tests with go test -exec 'gometal exec' and the program with gometal run.
// The kernel then has to come from the one embedded in gometal.
func TestInstallAndUseAnywhere(t *testing.T) {
	tmp := t.TempDir()
	gobin, home, mod := filepath.Join(tmp, "bin"), filepath.Join(tmp, "home"), filepath.Join(tmp, "userproj")
	for name, body := range userModule {
		p := filepath.Join(mod, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(home, 0o755)
	env := userEnv(t, gobin, home)
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	run := func(t *testing.T, dir string, extra []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Env = append(env[:len(env):len(env)], extra...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
		}
		return string(out)
	}

	run(t, modRoot, nil, "go", "install", "./cmd/gometal")
	installed := filepath.Join(gobin, "gometal")
	if _, err := os.Stat(installed); err != nil {
		t.Fatalf("go install left no gometal in GOBIN: %v", err)
	}

	bootSem <- struct{}{} // one QEMU at a time from here on
	defer func() { <-bootSem }()
	// For each architecture: GOARCH picks what go test builds and what
	// gometal run . builds, and the ELF picks the embedded kernel.
	forArches(t, func(t *testing.T, a *arch) {
		goarch := a.machine.Arch.BuildEnv()
		out := run(t, mod, goarch, "go", "test", "-count=1", "-v", "-exec", "gometal exec", "./...")
		for _, want := range []string{"--- PASS: TestGreeting", "--- PASS: TestRunsInPackageDir", "--- PASS: TestModuleDirectoryShown", "ok  \texample.com/userproj/lib"} {
			if !strings.Contains(out, want) {
				t.Errorf("go test -exec 'gometal exec' ./...: output lacks %q:\n%s", want, out)
			}
		}
		if out := run(t, mod, goarch, installed, "run", "."); !strings.Contains(out, "hello from a fresh module on linux/"+a.name) {
			t.Errorf("gometal run .: output:\n%s", out)
		}
	})
	out := run(t, mod, nil, installed, "version")
	if !strings.Contains(out, "(embedded in gometal: "+home) {
		t.Errorf("gometal version does not boot the embedded kernel from the user's cache:\n%s", out)
	}
	for _, a := range arches { // one line per kernel gometal carries
		if !regexp.MustCompile(`(?m)^kernel ` + a.name + ` \S+ build-id [0-9a-f]+ \(embedded in gometal: `).MatchString(out) {
			t.Errorf("gometal version does not name the embedded %s kernel:\n%s", a.name, out)
		}
	}
	t.Logf("gometal version:\n%s", out)
}

// userEnv is a clean environment: no GOMETAL_* variables, HOME a fresh
// directory, GOBIN first on PATH; the host's Go caches are reused only to
// save compile time, and the Go toolchain is never switched.
func userEnv(t *testing.T, gobin, home string) []string {
	t.Helper()
	env := []string{
		"PATH=" + gobin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
		"GOBIN=" + gobin,
		"GOTOOLCHAIN=local",
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPROXY", "GOFLAGS"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		if val := strings.TrimSpace(string(out)); val != "" {
			env = append(env, v+"="+val)
		}
	}
	return env
}
