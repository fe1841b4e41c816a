package gobuild

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Job is one go command for RunAll: what it builds (for messages), extra
// environment (e.g. TargetEnv), and the arguments after "go".
type Job struct {
	What string
	Env  []string
	Args []string
}

// RunAll runs the go commands of jobs in dir, all at once, with beside()
// (if not nil) running alongside them (the harnesses find the kernel
// meanwhile); it returns every failure, joined, each with the command's
// output.
func RunAll(ctx context.Context, dir string, jobs []Job, beside func() error) error {
	errs := make([]error, len(jobs)+1)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, "go", j.Args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), j.Env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("building %s (%s go %s): %v\n%s",
					j.What, strings.Join(j.Env, " "), strings.Join(j.Args, " "), err, out)
			}
		}()
	}
	if beside != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[len(jobs)] = beside()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
