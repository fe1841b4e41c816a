// One boot of the stress run: start gometal on a program, judge its console
// (exit status, the program's PASS line, the kernel's statistics) and keep
// the console of a failed boot.

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gometal.dev/gometal/internal/kernelimage"
	"gometal.dev/gometal/internal/kstats"
	"gometal.dev/gometal/internal/linesink"
)

// bootJob is one boot to make: where the CLI, kernel and program are, which
// program under which policy, its number, and where a failed console goes.
type bootJob struct {
	root, cli, kernel, bin string
	prog, policy           string
	n                      int
	logDir                 string
}

func boot(ctx context.Context, cfg config, j bootJob) result {
	root, cli, prog, policy, n := j.root, j.cli, j.prog, j.policy, j.n
	r := result{n: n, prog: prog, policy: policy, status: -1}
	// stats: the kernel's per-hart table shows that every hart came up (a
	// hart that fails to start is otherwise silent for these programs).
	args := []string{"run", "-cores", fmt.Sprint(cfg.cores), "-mem", cfg.mem, "-sched", policy,
		"-kernel-args", "stats", "-timeout", cfg.timeout.String(), j.bin}
	if prog == "numcpu" {
		args = append(args, fmt.Sprint(cfg.cores)) // it checks NumCPU against its argument
	}
	if prog == "fuzz" {
		args = append(args, fmt.Sprint(n), fmt.Sprint(cfg.fuzzCalls), "8") // seed, calls, threads
	}
	if cfg.verbose {
		fmt.Printf("#%d: %s %s\n", n, cli, strings.Join(args, " "))
	}
	// Our own deadline, in case gometal itself does not stop QEMU in time.
	bctx, cancel := context.WithTimeout(ctx, cfg.timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(bctx, cli, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), kernelimage.EnvFor(cfg.arch.Name)+"="+j.kernel)
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer // console and the CLI's own messages, a whole line at a time
	sink := linesink.New(&out)
	cmd.Stdout, cmd.Stderr = sink.Stream(), sink.Stream()
	t := time.Now()
	err := cmd.Run()
	sink.Flush()
	r.dur = time.Since(t)
	if ctx.Err() != nil {
		r.canceled = true
		return r
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		r.status = 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		r.status = ee.ExitCode()
	}
	console := out.String()
	switch {
	case bctx.Err() != nil:
		r.failed, r.hang = true, true
		r.reason = fmt.Sprintf("hang: gometal killed after %v", cfg.timeout+30*time.Second)
	case r.status == 124:
		r.failed, r.hang = true, true
		r.reason = fmt.Sprintf("hang: timeout %v (exit 124)", cfg.timeout)
	case r.status < 0:
		r.failed = true
		r.reason = fmt.Sprintf("gometal did not run: %v", err)
	case r.status != 0:
		r.failed = true
		r.reason = fmt.Sprintf("exit %d", r.status)
		if l := firstLine(console, "FAIL "+prog); l != "" {
			r.reason += ": " + l
		} else if l := firstLine(console, "gometal: kernel panic"); l != "" {
			r.reason += ": " + l
		}
	case prog == "fuzz" && !strings.Contains(console, fmt.Sprintf(": %d calls on", cfg.fuzzCalls)):
		r.failed = true
		r.reason = fmt.Sprintf("exit 0 but no line saying %d calls were made", cfg.fuzzCalls)
	case !hasLine(console, "PASS "+prog):
		r.failed = true
		r.reason = fmt.Sprintf("exit 0 but no line %q", "PASS "+prog)
	default:
		if p := checkStats(console, policy, cfg.cores); p != "" {
			r.failed = true
			r.reason = "exit 0 but " + p
		}
	}
	if r.failed {
		r.log = saveLog(j.logDir, r, cli, args, console)
	}
	return r
}

// checkStats checks the statistics the kernel prints at exit: they name the
// policy and list `cores` harts, every one online. It returns what is
// wrong, or "".
func checkStats(console, policy string, cores int) string {
	st, err := kstats.Parse(console)
	if err != nil {
		return err.Error()
	}
	if p := st.Check(policy, cores); len(p) > 0 {
		msg := strings.Join(p, "; ")
		if l := firstLine(console, "gometal: hart"); l != "" {
			msg += " (" + l + ")"
		}
		return msg
	}
	return ""
}

func saveLog(dir string, r result, cli string, args []string, console string) string {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "stress: cannot save console: %v\n", err)
		return ""
	}
	name := fmt.Sprintf("%s-%s-%s-%04d.log", time.Now().Format("20060102-150405"), r.prog, r.policy, r.n)
	path := filepath.Join(dir, name)
	var b strings.Builder
	fmt.Fprintf(&b, "# gometal stress boot #%d: %s, policy %s\n", r.n, r.prog, r.policy)
	fmt.Fprintf(&b, "# command: %s %s\n", cli, strings.Join(args, " "))
	fmt.Fprintf(&b, "# result: %s (exit status %d after %.1fs)\n", r.reason, r.status, r.dur.Seconds())
	b.WriteString("# console (stdout and stderr) follows\n")
	b.WriteString(console)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "stress: cannot save console: %v\n", err)
		return ""
	}
	return path
}

func firstLine(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, "\r "); strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func hasLine(s, line string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimRight(l, "\r ") == line {
			return true
		}
	}
	return false
}
