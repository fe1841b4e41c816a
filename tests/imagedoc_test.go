package tests

// The plain QEMU command lines the documentation gives for booting a
// `gometal build` image with no gometal on the host (README.md,
// docs/boards.md, gometal build -h), booted exactly as written: each must
// do what the same place says of QEMU's exit status, either "QEMU exits
// with the program's status" or "QEMU exits 0" with the status on the
// console's last line. TestImage/documented boots the riscv64 ones,
// TestImageArm64/documented the arm64 ones.

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// docCommand is one documented QEMU command line and what its place says
// about it.
type docCommand struct {
	where string   // the file or help text it is in
	argv  []string // as written, continuation lines joined
	note  string   // its comment or note: what it says of the exit status
}

// What a note says of the exit status: the test holds the command to it.
const (
	saysStatus = "exits with the program's status"
	saysZero   = "QEMU exits 0"
)

// documentedCommands are every documented QEMU command line for the
// image of a's architecture.
func documentedCommands(t *testing.T, a *arch) []docCommand {
	t.Helper()
	var all []docCommand
	for _, doc := range []string{"README.md", "docs/boards.md"} {
		all = append(all, markdownCommands(doc, mustRead(t, filepath.Join(modRoot, doc)))...)
	}
	help, err := exec.Command(gometal, "build", "-h").Output()
	if err != nil {
		t.Fatalf("gometal build -h: %v", err)
	}
	all = append(all, helpCommands(string(help))...)
	var mine []docCommand
	for _, c := range all {
		if filepath.Base(c.argv[0]) == filepath.Base(a.qemu) {
			mine = append(mine, c)
		}
	}
	if len(mine) == 0 {
		t.Fatalf("no documented %s command line found", filepath.Base(a.qemu))
	}
	return mine
}

// markdownCommands finds the qemu-system-* lines in where's code blocks:
// a line's trailing "# ..." and the comment lines right after it are its
// note.
func markdownCommands(where, text string) []docCommand {
	var cmds []docCommand
	inCode := false
	var cur *docCommand
	continued := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode, cur = !inCode, nil
			continue
		}
		if !inCode {
			continue
		}
		code, comment, _ := strings.Cut(line, "#")
		switch {
		case continued && cur != nil:
			cur.argv = append(cur.argv, strings.Fields(strings.TrimSuffix(strings.TrimSpace(code), `\`))...)
		case strings.HasPrefix(line, "qemu-system-"):
			cmds = append(cmds, docCommand{where: where, argv: strings.Fields(strings.TrimSuffix(strings.TrimSpace(code), `\`))})
			cur = &cmds[len(cmds)-1]
		case strings.TrimSpace(code) == "" && cur != nil:
			// a comment line under the command: more of its note
		default:
			cur = nil
		}
		continued = strings.HasSuffix(strings.TrimSpace(code), `\`)
		if cur != nil {
			cur.note += " " + strings.TrimSpace(comment)
		}
	}
	return cmds
}

// helpCommands finds the qemu-system-* lines of gometal build -h: each
// with the more-indented lines after it as its note.
func helpCommands(help string) []docCommand {
	var cmds []docCommand
	sc := bufio.NewScanner(strings.NewReader(help))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\tqemu-system-"):
			cmds = append(cmds, docCommand{where: "gometal build -h", argv: strings.Fields(line)})
		case strings.HasPrefix(line, "\t ") && len(cmds) > 0:
			cmds[len(cmds)-1].note += " " + strings.TrimSpace(line)
		}
	}
	return cmds
}

// bootDocumented boots every documented command line for a's image
// exactly as written (only the file names it uses point at this test's
// files) and holds each to what its note says of the exit status.
func bootDocumented(t *testing.T, a *arch) {
	dir := t.TempDir()
	plain := buildExitImage(t, a, filepath.Join(dir, "app.img"))
	reboot := buildExitImage(t, a, filepath.Join(dir, "reboot.img"), "-on-exit", "reboot")
	for i, c := range documentedCommands(t, a) {
		t.Run(strings.ReplaceAll(c.where, "/", "-")+"-"+string(rune('a'+i)), func(t *testing.T) {
			t.Parallel()
			img := plain
			if strings.Contains(c.note, "-on-exit reboot") {
				img = reboot // the note says to build it so
			}
			argv := docFiles(t, c.argv, img)
			out, status := bootArgv(t, argv)
			t.Logf("%s: %s\n%s", c.where, strings.Join(c.argv, " "), c.note)
			switch {
			case strings.Contains(c.note, saysStatus) && status != 3:
				t.Errorf("%s says QEMU %s; it exited %d", c.where, saysStatus, status)
			case strings.Contains(c.note, saysStatus):
			case strings.Contains(c.note, saysZero) && status != 0:
				t.Errorf("%s says %s; it exited %d", c.where, saysZero, status)
			case strings.Contains(c.note, saysZero) && !strings.Contains(out, "gometal: exit status 3;"):
				t.Errorf("%s says %s and the console has the status; it has not", c.where, saysZero)
			case !strings.Contains(c.note, saysZero):
				t.Errorf("%s does not say what QEMU's exit status is (%q or %q): %q", c.where, saysStatus, saysZero, c.note)
			}
			if !strings.Contains(out, "exiting with 3") {
				t.Errorf("the program did not run")
			}
			if t.Failed() {
				t.Logf("console:\n%s", tail(out, 40))
			}
		})
	}
}

// buildExitImage builds tests/progs/exitcode, exiting with 3, as an image
// for a, with more gometal build flags.
func buildExitImage(t *testing.T, a *arch, out string, flags ...string) string {
	t.Helper()
	argv := append(append([]string{"build", "-o", out}, flags...), a.prog("exitcode"), "3")
	cmd := exec.Command(gometal, argv...)
	cmd.Env = gometalEnv()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gometal %s: %v\n%s", strings.Join(argv, " "), err, msg)
	}
	return out
}

// docFiles points the file names documented commands use at this test's
// files: app.img at img, esp.img at an EFI system partition holding it,
// sd.img at an SD card with it and an extlinux.conf.
func docFiles(t *testing.T, argv []string, img string) []string {
	out := make([]string, len(argv))
	for i, arg := range argv {
		switch {
		case strings.Contains(arg, "esp.img"):
			esp := sdCard(t, map[string][]byte{"EFI/BOOT/BOOTAA64.EFI": mustReadFile(t, img)})
			arg = strings.ReplaceAll(arg, "esp.img", esp)
		case strings.Contains(arg, "sd.img"):
			sd := sdCard(t, map[string][]byte{"app.img": mustReadFile(t, img), "extlinux/extlinux.conf": []byte(extlinux)})
			arg = strings.ReplaceAll(arg, "sd.img", sd)
		case arg == "app.img":
			arg = img
		}
		out[i] = arg
	}
	return out
}

// bootArgv runs a QEMU command line with nothing on its stdin and returns
// its console and exit status; a run past guestTimeout fails the test.
func bootArgv(t *testing.T, argv []string) (string, int) {
	t.Helper()
	bootSem <- struct{}{}
	defer func() { <-bootSem }()
	ctx, cancel := context.WithTimeout(context.Background(), guestTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if f, err := os.Open(os.DevNull); err == nil {
		defer f.Close()
		cmd.Stdin = f
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s: still running after %v (a silent hang):\n%s", strings.Join(argv, " "), guestTimeout, tail(out.String(), 40))
	}
	status, runErr := exitStatus(err)
	if runErr != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), runErr, tail(out.String(), 40))
	}
	return out.String(), status
}
