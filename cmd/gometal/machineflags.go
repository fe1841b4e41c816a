package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"gometal.dev/gometal/internal/devices"
	"gometal.dev/gometal/internal/initramfs"
	"gometal.dev/gometal/internal/kstats"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// parseCommand parses the command line of `cmd` (run, exec): flags, then
// at least one argument, else a usage error saying `missing`. flag.ErrHelp
// (-h) comes back as it is.
func parseCommand(fs *flag.FlagSet, cmd string, args []string, missing string) error {
	if err := fs.Parse(joinNetValue(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageErrorf(cmd, "%s: %v", cmd, err)
	}
	if fs.NArg() == 0 {
		return usageErrorf(cmd, "%s: %s", cmd, missing)
	}
	return nil
}

// schedPolicies are the placement policies the kernel accepts for sched=.
var schedPolicies = kstats.SchedPolicies

// machineFlags are the flags that describe the machine and the boot,
// shared by `run` and `exec` (flags.go registers them).
type machineFlags struct {
	cores      coresFlag
	mem        string
	timeout    time.Duration
	grace      time.Duration
	verbose    bool
	env        listFlag
	add        listFlag
	adds       []initramfs.Mapping // add, parsed by validate
	devices    listFlag
	disks      listFlag          // -disk PATH: shorthand for -device blk=PATH
	devSel     devices.Selection // devices, parsed by validate
	mount      listFlag
	mounts     []guestMount // mount, parsed by validate
	net        netFlag
	virtio     string // -virtio: "mmio", "pci" or "" (the machine's own)
	publish    listFlag
	forwards   []qemu.Forward // publish, parsed by validate
	kernel     string
	kernelArgs string
	sched      string
	qemu       string
	accel      string
	machine    string // -machine as given ("": the architecture's default)
}

// runMachine is the machine called name, if run and exec boot on it.
func runMachine(name string) (*machine.Machine, error) {
	if !slices.Contains(runMachines(), name) {
		return nil, fmt.Errorf("%q: want one of %s", name, strings.Join(runMachines(), ", "))
	}
	return machine.Named(name)
}

// machineFor is the machine to boot a program for arch on (the one
// machine.ResolveArch chose, so -machine agrees with it): -machine's,
// else arch's default. -mem must be at least what that machine boots in.
func (f *machineFlags) machineFor(cmd string, arch *machine.Arch) (*machine.Machine, error) {
	m := arch.Default()
	if f.machine != "" {
		var err error
		if m, err = runMachine(f.machine); err != nil {
			return nil, usageErrorf(cmd, "%s: -machine: %v", cmd, err)
		}
		if m.Arch != arch {
			return nil, inputError(fmt.Errorf("%s: -machine %s runs %s programs; this one is %s", cmd, m.Name, m.Arch.Name, arch.Name))
		}
	}
	if err := m.Check(); err != nil {
		return nil, inputError(fmt.Errorf("%s: %v", cmd, err))
	}
	if err := checkMem(cmd, f.mem, m); err != nil {
		return nil, err
	}
	return m, nil
}

// checkMem refuses a -mem below what m can boot in, in one line, before
// QEMU would fail less clearly ("could not load firmware", "kernel too
// large") with a status the help keeps for build failures.
func checkMem(cmd, mem string, m *machine.Machine) error {
	n, err := qemu.ParseSize(mem)
	if err != nil {
		return usageErrorf(cmd, "%s: -mem: %v", cmd, err)
	}
	if err := m.CheckMemory(n); err != nil {
		return usageErrorf(cmd, "%s: -mem %s: %v", cmd, mem, err)
	}
	return nil
}

// validate checks the values (errors name the command `cmd`), expands
// bare -env KEYs from gometal's own environment and parses -add.
func (f *machineFlags) validate(cmd string) error {
	if _, err := qemu.ParseSize(f.mem); err != nil {
		return usageErrorf(cmd, "%s: -mem: %v", cmd, err)
	}
	if f.timeout < 0 {
		return usageErrorf(cmd, "%s: -timeout %v: must not be negative", cmd, f.timeout)
	}
	if f.grace < 0 {
		return usageErrorf(cmd, "%s: -grace %v: must not be negative", cmd, f.grace)
	}
	if err := parseAccelFlag(cmd, f.accel); err != nil {
		return err
	}
	if f.machine != "" {
		if _, err := runMachine(f.machine); err != nil {
			return usageErrorf(cmd, "%s: -machine: %v", cmd, err)
		}
	}
	if f.sched != "" && !slices.Contains(schedPolicies, f.sched) {
		return usageErrorf(cmd, "%s: -sched %q: want one of %s", cmd, f.sched, strings.Join(schedPolicies, ", "))
	}
	for i, kv := range f.env {
		full, err := envPair(kv, os.LookupEnv)
		if err != nil {
			return usageErrorf(cmd, "%s: -env %v", cmd, err)
		}
		f.env[i] = full
	}
	for _, d := range f.disks {
		f.devices = append(f.devices, "blk="+d)
	}
	sel, err := devices.Select(f.devices)
	if err != nil {
		return usageErrorf(cmd, "%s: -device %v", cmd, err)
	}
	f.devSel = sel
	for _, a := range f.add {
		m, err := initramfs.ParseMapping(a)
		if err != nil {
			return usageErrorf(cmd, "%s: -add %v", cmd, err)
		}
		f.adds = append(f.adds, m)
	}
	for i, spec := range f.mount {
		m, err := parseMount(spec, i)
		if err != nil {
			return usageErrorf(cmd, "%s: -mount %v", cmd, err)
		}
		f.mounts = append(f.mounts, m)
	}
	fw, err := parsePublishes(f.publish)
	if err != nil {
		return usageErrorf(cmd, "%s: -p %v", cmd, err)
	}
	f.forwards = fw
	if _, err := machine.ParseTransport(f.virtio); err != nil {
		return usageErrorf(cmd, "%s: -virtio %v", cmd, err)
	}
	if f.net.tap != "" && len(fw) > 0 {
		return usageErrorf(cmd, "%s: -p publishes ports through QEMU's user network, not a tap device: reach the guest at its own address", cmd)
	}
	return nil
}

// kernelOptions are the kernel command-line options the flags ask for.
func (f *machineFlags) kernelOptions() []string {
	var opts []string
	if f.verbose {
		opts = append(opts, "verbose")
	}
	if f.sched != "" {
		opts = append(opts, "sched="+f.sched)
	}
	for _, m := range f.mounts {
		opts = append(opts, m.kernelOption())
	}
	if o := netKernelOption(f.net); o != "" {
		opts = append(opts, o)
	}
	return append(opts, f.devSel.Kernel...)
}
