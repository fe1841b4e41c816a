package kernelimage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Target is the Rust target the riscv64 kernel is built for (TargetFor
// names every architecture's).
var Target = TargetFor("riscv64")

// binName is the kernel's [[bin]] target name.
const binName = "gometal-kernel"

// slowAfter is how long a build may take before we tell the user why
// nothing is happening yet; an up-to-date build finishes well within it.
const slowAfter = time.Second

// CargoBuild builds the riscv64 kernel; see CargoBuildFor.
func CargoBuild(dir string, slow func()) (string, error) {
	return CargoBuildFor(dir, DefaultArch, slow)
}

// Cargo profiles of the kernel (kernel/Cargo.toml): the release kernel
// gometal boots, and the checked one, the same code with debug assertions
// and overflow checks, whose lock-order checks make test boots
// (tests/checked_test.go).
const (
	ProfileRelease = "release"
	ProfileChecked = "checked"
)

// CargoBuildFor builds the kernel crate in dir for arch in release mode; see
// CargoBuildProfile.
func CargoBuildFor(dir, arch string, slow func()) (string, error) {
	return CargoBuildProfile(dir, arch, ProfileRelease, slow)
}

// CargoBuildProfile builds the kernel crate in dir for arch with a cargo
// profile (ProfileRelease, ProfileChecked), reproducibly
// (reproducibleEnv), and returns the ELF's path. Cargo's output is shown only if the build fails: on success
// it is noise. The path comes from cargo's JSON messages, so a
// CARGO_TARGET_DIR set by the user is honored.
func CargoBuildProfile(dir, arch, profile string, slow func()) (string, error) {
	target := TargetFor(arch)
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		return "", fmt.Errorf("%w (needed to build the kernel in %s)", ErrNoCargo, dir)
	}
	cmd := exec.Command(cargo, "build", "--profile", profile, "--target", target,
		"--bin", binName, "--message-format=json-render-diagnostics")
	cmd.Dir = dir
	cmd.Env = reproducibleEnv(os.Environ(), dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if slow != nil {
		t := time.AfterFunc(slowAfter, slow)
		defer t.Stop()
	}
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the kernel in %s failed (%v):\n%s", dir, err, bytes.TrimRight(stderr.Bytes(), "\n"))
	}
	if exe := executable(stdout.Bytes()); exe != "" {
		return exe, nil
	}
	exe := filepath.Join(dir, "target", target, profile, binName)
	return exe, checkFile(exe)
}

// executable finds the kernel binary's path in cargo's JSON messages.
func executable(messages []byte) string {
	var found string
	sc := bufio.NewScanner(bytes.NewReader(messages))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m struct {
			Reason     string                `json:"reason"`
			Target     struct{ Name string } `json:"target"`
			Executable *string               `json:"executable"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if m.Reason == "compiler-artifact" && m.Target.Name == binName && m.Executable != nil {
			found = *m.Executable
		}
	}
	return found
}
