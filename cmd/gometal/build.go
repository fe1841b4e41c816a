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
	cores      int
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
the gometal kernel as a Linux kernel Image for the architecture (the header
QEMU -kernel, U-Boot's booti and other loaders start), followed by the
program, its arguments, the -env variables and the -add files. The kernel
finds them in its own image; it needs no initrd from the loader, and it
ignores the loader's command line.

	qemu-system-riscv64 -M virt -nographic -kernel app.img
	qemu-system-aarch64 -M virt -cpu cortex-a72 -nographic -kernel app.img   (-arch arm64)
	U-Boot:  load mmc 0:1 ${kernel_addr_r} app.img; booti ${kernel_addr_r} - ${fdtcontroladdr}
	UEFI (arm64): the image is also an EFI application: EFI/BOOT/BOOTAA64.EFI
	on a FAT partition; the firmware's device tree or ACPI tables

On a machine without virtio devices the program's stdin, stdout and stderr
are the serial console (the device tree's /chosen/stdout-path) and its
random numbers come from the loader's /chosen/rng-seed; docs/boards.md
says how to put the image on an SD card.

When the program ends the machine powers off (-on-exit): QEMU exits with
the program's status; elsewhere the console's last line says it.

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
	fs.StringVar(&f.out, "o", "", "the image file to write (required)")
	fs.StringVar(&f.arch, "arch", "riscv64", "the architecture: riscv64 or arm64")
	fs.StringVar(&f.onExit, "on-exit", "poweroff", "what the machine does when the program ends: "+strings.Join(onExitModes, ", "))
	fs.StringVar(&f.earlycon, "earlycon", "", "arm64: the UART that says why the kernel cannot boot before it has a device tree (no device tree, a bad load address), as Linux's earlycon=: pl011,ADDRESS, uart8250,mmio,ADDRESS, uart8250,mmio32,ADDRESS or none (default: QEMU virt's PL011, "+bootimage.QEMUVirtEarlyConsole.String()+")")
	fs.IntVar(&f.cores, "cores", 0, fmt.Sprintf("use at most this many CPU cores, 1 to %d (0: all the machine has)", maxCores))
	fs.BoolVar(&f.verbose, "v", false, "verbose: the kernel logs its boot")
	fs.Var(&f.env, "env", "set `KEY=VALUE` in the program's environment (repeatable); KEY alone copies gometal's own value")
	fs.Var(&f.add, "add", "add a host file or directory tree to the image at an absolute guest path: `HOST:GUEST` (repeatable)")
	fs.StringVar(&f.kernel, "kernel", "", "the gometal kernel ELF or Image (default $GOMETAL_KERNEL, else built from the source checkout gometal runs in, else the one embedded in gometal)")
	fs.StringVar(&f.kernelArgs, "kernel-args", "", "extra kernel command-line options, passed verbatim")
	fs.StringVar(&f.sched, "sched", "", "thread placement policy: "+strings.Join(schedPolicies, ", ")+" (default: the kernel's)")
	fs.StringVar(&f.tags, "tags", "", "build tags, passed to go build")
	fs.StringVar(&f.ldflags, "ldflags", "", "linker flags, passed to go build")
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
	case f.arch != "riscv64" && f.arch != "arm64":
		return usageErrorf("build", "build: -arch %q: want riscv64 or arm64", f.arch)
	case !slices.Contains(onExitModes, f.onExit):
		return usageErrorf("build", "build: -on-exit %q: want one of %s", f.onExit, strings.Join(onExitModes, ", "))
	case f.cores < 0 || f.cores > maxCores:
		return usageErrorf("build", "build: -cores %d: want 0 to %d", f.cores, maxCores)
	case f.sched != "" && !slices.Contains(schedPolicies, f.sched):
		return usageErrorf("build", "build: -sched %q: want one of %s", f.sched, strings.Join(schedPolicies, ", "))
	}
	if f.earlycon != "" {
		if f.arch != "arm64" {
			return usageErrorf("build", "build: -earlycon is for arm64 images (riscv64 prints through its SBI firmware)")
		}
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
		opts = append(opts, fmt.Sprintf("cores=%d", f.cores))
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
	buildArch, err := machine.ArchNamed(f.arch)
	if err != nil {
		return inputError(err)
	}
	rf := &runFlags{target: f.target, tags: f.tags, ldflags: f.ldflags, arch: buildArch, archFlag: f.arch}
	arch, err := programArch(rf, kind)
	if err != nil {
		return err
	}
	exe, err := program(context.Background(), rf, kind, arch, tmp)
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
