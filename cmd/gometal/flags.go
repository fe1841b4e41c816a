package main

// The machine flags run and exec share (machineFlags.register), -machine
// and -accel's checks, and the help texts the flag table (flagtable.go)
// takes from here.

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"gometal.dev/gometal/internal/machine"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// register defines the machine flags on fs for cmd (run or exec), storing
// into f; flagTable has their names, defaults and help.
func (f *machineFlags) register(fs *flag.FlagSet, cmd string) {
	defineFlag(fs, cmd, "cores", &f.cores)
	defineFlag(fs, cmd, "mem", &f.mem)
	defineFlag(fs, cmd, "timeout", &f.timeout)
	defineFlag(fs, cmd, "grace", &f.grace)
	defineFlag(fs, cmd, "v", &f.verbose)
	defineFlag(fs, cmd, "env", &f.env)
	defineFlag(fs, cmd, "device", &f.devices)
	defineFlag(fs, cmd, "disk", &f.disks)
	defineFlag(fs, cmd, "add", &f.add)
	defineFlag(fs, cmd, "mount", &f.mount)
	defineFlag(fs, cmd, "net", &f.net)
	defineFlag(fs, cmd, "virtio", &f.virtio)
	defineFlag(fs, cmd, "p", &f.publish)
	defineFlag(fs, cmd, "kernel", &f.kernel)
	defineFlag(fs, cmd, "kernel-args", &f.kernelArgs)
	defineFlag(fs, cmd, "sched", &f.sched)
	defineFlag(fs, cmd, "qemu", &f.qemu)
	defineFlag(fs, cmd, "accel", &f.accel)
	defineFlag(fs, cmd, "machine", &f.machine)
}

// runMachines are the machines run and exec boot a program on: supported,
// started with -kernel, and with the virtio devices the program's stdio
// travels on (a board model such as sifive_u boots images only).
func runMachines() []string {
	var names []string
	for _, m := range machine.Machines {
		if m.Supported && m.Boot.Load == machine.LoadKernel && m.Virtio != machine.NoVirtio {
			names = append(names, m.Name)
		}
	}
	return names
}

// machineFlagHelp lists the machines gometal boots, from the table.
func machineFlagHelp() string {
	return "the machine to boot on: " + strings.Join(runMachines(), ", ") + " (default: the program's architecture's first; a package with no -arch is built for the machine's)"
}

// defaultGrace is how long a program has to end after a stop signal, as
// `docker stop` gives a container.
const defaultGrace = 10 * time.Second

// graceHelp is -grace's help text (run and exec).
const graceHelp = "SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 go to the program; if it has not ended this long after a SIGINT, SIGTERM or SIGQUIT (or at a second one), the machine is stopped and gometal exits 128+signal (0: only at a second one)"

// chooseAccel resolves -accel (already checked by parseAccelFlag) for a
// guest of arch on this host, printing the one line that says when an
// explicit kvm or hvf falls back to TCG.
func chooseAccel(cmd, req string, arch *machine.Arch) machine.Accel {
	r, _ := machine.ParseAccel(req)
	a, note := machine.ChooseAccel(r, machine.HostNow(), arch)
	if note != "" {
		fmt.Fprintf(os.Stderr, "gometal %s: %s\n", cmd, note)
	}
	return a
}

// parseAccelFlag checks -accel's value.
func parseAccelFlag(cmd, v string) error {
	if _, err := machine.ParseAccel(v); err != nil {
		return usageErrorf(cmd, "%s: -accel %v", cmd, err)
	}
	return nil
}
