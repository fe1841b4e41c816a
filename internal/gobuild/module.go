package gobuild

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ModuleRoot is the directory of the go.mod that governs the working
// directory (`go env GOMOD`): the gometal checkout, for the harnesses that
// build its programs (bench, stress, the boot tests).
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside a Go module (go env GOMOD is empty): run this inside the gometal checkout")
	}
	return filepath.Dir(gomod), nil
}
