// Command gometal runs ordinary static Linux/riscv64 Go programs on the
// gometal bare-metal kernel under QEMU.
//
// Each subcommand lives in its own file and is listed in commands; a new
// one (exec for `go test -exec`, bench) is one file and one line here.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// command is one gometal subcommand.
type command struct {
	name    string
	summary string               // one line for the overview
	usage   func(w io.Writer)    // the full help text
	run     func([]string) error // returns nil, *exitError or a plain error
}

// commands is the subcommand table, in the order help lists them.
var commands = []*command{runCommand, buildCommand, execCommand, benchCommand, versionCommand}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the subcommand named by args[0] and returns the exit status.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		overview(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		return help(args[1:], stdout, stderr)
	}
	cmd := lookup(name)
	if cmd == nil {
		return report(stderr, usageErrorf("", "unknown command %q", name))
	}
	return report(stderr, cmd.run(args[1:]))
}

// help prints the overview, or one command's help for `gometal help CMD`.
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		overview(stdout)
		return 0
	}
	if args[0] == "devices" {
		devicesHelp(stdout)
		return 0
	}
	cmd := lookup(args[0])
	if cmd == nil {
		return report(stderr, usageErrorf("", "unknown help topic %q", args[0]))
	}
	cmd.usage(stdout)
	return 0
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// exitError carries an exit status and, for usage mistakes, the command
// whose help the user should read.
type exitError struct {
	code  int
	err   error
	usage *string // non-nil: print a hint to read this command's help
}

func (e *exitError) Error() string { return e.err.Error() }

// usageErrorf reports a mistake in how gometal was invoked (exit status 2),
// with a hint pointing at the help of cmd ("" for the overview).
func usageErrorf(cmd, format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...), usage: &cmd}
}

// inputError reports a problem with the user's input, such as a file that
// cannot run (exit status 2), without a usage hint.
func inputError(err error) error { return &exitError{code: 2, err: err} }

// exitStatus is a silent exit with the given status: the program's own
// status, or a build failure whose diagnostics were already printed.
func exitStatus(code int) error { return &exitError{code: code} }

// report prints err (if any) as a single `gometal: ` line and returns the
// exit status it implies.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		fmt.Fprintf(stderr, "gometal: %v\n", err)
		return 1
	}
	if ee.err != nil {
		fmt.Fprintf(stderr, "gometal: %v\n", ee.err)
	}
	if ee.usage != nil {
		hint := "gometal -h"
		if *ee.usage != "" {
			hint = "gometal " + *ee.usage + " -h"
		}
		fmt.Fprintf(stderr, "run '%s' for usage\n", hint)
	}
	return ee.code
}
