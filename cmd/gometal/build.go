package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gometal.dev/gometal/internal/bootargs"
	"gometal.dev/gometal/internal/bootimage"
	"gometal.dev/gometal/internal/initramfs"
	"gometal.dev/gometal/internal/kernelimage"
	"gometal.dev/gometal/internal/machine"
)

var buildCommand = &command{
	name:    "build",
	summary: "write one bootable image file: the kernel, a Go program, its arguments and files",
	usage:   buildUsage,
	run:     buildMain,
}

// buildFlags holds `gometal build`'s options.
type buildFlags struct {
	out        string
	arch       string
	onExit     string
	earlycon   string
	early      bootimage.EarlyConsole
	cores      coresFlag // 0: all the machine's CPUs
	verbose    bool
	env        listFlag
	add        listFlag
	adds       []initramfs.Mapping
	kernel     string
	kernelArgs string
	sched      string
	tags       string
	ldflags    string
	target     string
	args       []string
}

// onExitModes are the kernel's onexit= values.
var onExitModes = []string{"poweroff", "reboot", "halt"}

func buildUsage(w io.Writer) {
	fmt.Fprint(w, `usage: gometal build -o app.img [flags] <package-or-binary> [arguments...]

Build writes one file that boots a Go program with no gometal on the host:
the gometal kernel as a Linux kernel Image for the program's architecture
(the header QEMU -kernel, U-Boot's booti and other loaders start), followed
by the program, its arguments, the -env variables and the -add files. The
kernel finds them in its own image; it needs no initrd from the loader, and
of the loader's command line it keeps only arm64's semihosting option
(below).
The architecture is a prebuilt binary's own, else -arch, $GOARCH or the
host's, as for gometal run. The image uses every CPU its machine has, or
-cores of them.

`+plainQEMUHelp()+`	U-Boot:  load mmc 0:1 ${kernel_addr_r} app.img; booti ${kernel_addr_r} - ${fdtcontroladdr}
	UEFI (arm64): the image is also an EFI application: EFI/BOOT/BOOTAA64.EFI
	on a FAT partition; the firmware's device tree or ACPI tables

On a machine without virtio devices the program's stdin, stdout and stderr
are the serial console (the device tree's /chosen/stdout-path) and its
random numbers come from the loader's /chosen/rng-seed; docs/boards.md
says how to put the image on an SD card.

When the program ends the machine powers off (-on-exit): under the QEMU
commands above QEMU exits with the program's status; elsewhere (U-Boot,
UEFI, a board) the console's last line says it: "gometal: exit status N;
powering off".

Flags:
`)
	fs, _ := newBuildFlagSet()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, `
Examples:

	gometal build -o hello.img ./examples/hello
	gometal build -o app.img -env TZ=UTC -add testdata:/testdata ./prog -flag value
	gometal build -o app.img -on-exit reboot ./prog
	gometal build -o app.img -arch arm64 -earlycon pl011,0xfe201000 ./prog   (Raspberry Pi 4)
`)
}

func newBuildFlagSet() (*flag.FlagSet, *buildFlags) {
	f := &buildFlags{}
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for name, p := range map[string]any{
		"o": &f.out, "arch": &f.arch, "on-exit": &f.onExit, "earlycon": &f.earlycon, "cores": &f.cores,
		"v": &f.verbose, "env": &f.env, "add": &f.add, "kernel": &f.kernel, "kernel-args": &f.kernelArgs,
		"sched": &f.sched, "tags": &f.tags, "ldflags": &f.ldflags,
	} {
		defineFlag(fs, "build", name, p)
	}
	return fs, f
}

func parseBuildFlags(args []string) (*buildFlags, error) {
	fs, f := newBuildFlagSet()
	if err := parseCommand(fs, "build", args, "no package or binary given"); err != nil {
		return nil, err
	}
	f.target, f.args = fs.Arg(0), fs.Args()[1:]
	return f, f.validate()
}

func (f *buildFlags) validate() error {
	switch {
	case f.out == "":
		return usageErrorf("build", "build: -o: the image file to write is required")
	case !slices.Contains(onExitModes, f.onExit):
		return usageErrorf("build", "build: -on-exit %q: want one of %s", f.onExit, strings.Join(onExitModes, ", "))
	case f.sched != "" && !slices.Contains(schedPolicies, f.sched):
		return usageErrorf("build", "build: -sched %q: want one of %s", f.sched, strings.Join(schedPolicies, ", "))
	}
	if err := checkArchFlag("build", f.arch); err != nil {
		return err
	}
	if f.earlycon != "" {
		c, err := bootimage.ParseEarlyConsole(f.earlycon)
		if err != nil {
			return usageErrorf("build", "build: -earlycon %v", err)
		}
		f.early = c
	}
	for i, kv := range f.env {
		full, err := envPair(kv, os.LookupEnv)
		if err != nil {
			return usageErrorf("build", "build: -env %v", err)
		}
		f.env[i] = full
	}
	for _, a := range f.add {
		m, err := initramfs.ParseMapping(a)
		if err != nil {
			return usageErrorf("build", "build: -add %v", err)
		}
		f.adds = append(f.adds, m)
	}
	return nil
}

// kernelOptions are the command line's kernel options.
func (f *buildFlags) kernelOptions() []string {
	var opts []string
	if f.verbose {
		opts = append(opts, "verbose")
	}
	if f.cores > 0 {
		opts = append(opts, fmt.Sprintf("cores=%d", int(f.cores)))
	}
	if f.sched != "" {
		opts = append(opts, "sched="+f.sched)
	}
	if f.onExit != "poweroff" {
		opts = append(opts, "onexit="+f.onExit)
	}
	return opts
}

// buildMain is `gometal build`: the program first (a bad one is reported
// before the kernel is built), then the kernel Image, then the file.
func buildMain(args []string) error {
	f, err := parseBuildFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		buildUsage(os.Stdout)
		return nil
	}
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "gometal-build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	kind, err := classify(f.target)
	if err != nil {
		return inputError(err)
	}
	arch, err := programArch("build", f.arch, "", f.target, kind)
	if err != nil {
		return err
	}
	if f.earlycon != "" && arch != machine.ARM64 {
		return usageErrorf("build", "build: -earlycon is for arm64 images; this one is %s (riscv64 prints through its SBI firmware)", arch.Name)
	}
	exe, err := program(context.Background(), f.target, f.tags, f.ldflags, kind, arch, tmp)
	if err != nil {
		return err
	}
	archive := filepath.Join(tmp, "initramfs.cpio")
	if err := initramfs.Create(archive, exe, f.adds); err != nil {
		return inputError(err)
	}
	cpio, err := os.ReadFile(archive)
	if err != nil {
		return err
	}
	elf, err := kernelFinder(arch).Find(f.kernel)
	if err != nil {
		return inputError(err)
	}
	if err := checkKernelArch(elf, arch); err != nil {
		return inputError(err)
	}
	kernel, err := kernelimage.Image(elf)
	if err != nil {
		return inputError(err)
	}
	cmd := bootargs.Cmdline{Options: f.kernelOptions(), Env: f.env, Raw: f.kernelArgs, Args: f.args}.String()
	img, err := bootimage.WithPayload(kernel, cmd, cpio)
	if err != nil {
		return err
	}
	if f.earlycon != "" {
		if err := bootimage.SetEarlyConsole(img, f.early); err != nil {
			return inputError(err)
		}
	}
	return writeImage(f.out, img)
}

// writeImage writes the image through a temporary file in the same
// directory, so a failed or interrupted build never leaves half an image
// where a working one was.
func writeImage(path string, img []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gometal-image-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(img); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// plainQEMU are the QEMU command lines that boot an image with no gometal
// on the host, one per architecture, each with what a reader must know
// next to it. build -h prints them; README.md repeats them, and
// tests/image_test.go boots every documented command exactly as written
// and checks the exit status it claims.
var plainQEMU = []struct{ command, note string }{
	{"qemu-system-riscv64 -M virt -nographic -kernel app.img",
		"riscv64: QEMU exits with the program's status (the virt machine's test device carries it)"},
	{"qemu-system-aarch64 -M virt -cpu cortex-a72 -nographic -semihosting -append semihosting -kernel app.img",
		"arm64: QEMU exits with the program's status through Arm semihosting: -semihosting lets the guest call it, -append semihosting tells the kernel it may (never give the second without the first); without them QEMU exits 0 and the console's last line says the status. On arm64 -cpu is needed too: without it QEMU 7.2 starts a 32-bit Cortex-A15, which cannot run the image: nothing is printed and QEMU never exits"},
}

// plainQEMUHelp is plainQEMU as build -h shows it: each command, then its
// note wrapped below it.
func plainQEMUHelp() string {
	var b strings.Builder
	for _, q := range plainQEMU {
		b.WriteString("\t" + q.command + "\n")
		line := "\t    "
		for _, w := range strings.Fields(q.note) {
			if len(line)+len(w) > 76 && strings.TrimSpace(line) != "" {
				b.WriteString(line + "\n")
				line = "\t    "
			}
			if strings.TrimSpace(line) != "" {
				line += " "
			}
			line += w
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
