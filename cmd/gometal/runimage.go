package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"gometal.dev/gometal/internal/bootimage"
	"gometal.dev/gometal/internal/console"
	"gometal.dev/gometal/internal/machine"
	"gometal.dev/gometal/internal/qemu"
)

// isImage reports whether path starts like a Linux kernel Image (what
// `gometal build` writes), rather than a program.
func isImage(path string) bool {
	file, err := os.Open(path)
	if err != nil {
		return false
	}
	defer file.Close()
	head := make([]byte, 128)
	n, _ := io.ReadFull(file, head)
	if bytes.HasPrefix(head[:n], []byte("\x7fELF")) {
		return false
	}
	_, err = bootimage.ReadHeader(head[:n])
	return err == nil
}

// runImage is `gometal run app.img`: it boots a file `gometal build`
// wrote as a board would, on the serial console, after checking it the
// way the kernel will (a damaged file, or one for another architecture,
// gets one line here instead of a machine that never starts). The image
// carries its program, arguments and files: flags that would change them
// are mistakes.
func runImage(f *runFlags) error {
	if err := sealedFlags(f); err != nil {
		return err
	}
	data, err := os.ReadFile(f.target)
	if err != nil {
		return inputError(err)
	}
	h, err := bootimage.Check(data)
	if err != nil {
		return inputError(fmt.Errorf("%s: %v", f.target, err))
	}
	arch, err := machine.ArchNamed(h.Arch)
	if err != nil {
		return inputError(fmt.Errorf("%s: a gometal image for %s: %v", f.target, h.Arch, err))
	}
	// An image, like a prebuilt binary, is what it was built for.
	if _, err := machine.ResolveArch(machine.ArchInputs{Flag: f.arch, Binary: arch, BinaryName: f.target}); err != nil {
		return inputError(fmt.Errorf("run: %v", err))
	}
	m, err := f.machineFor("run", arch)
	if err != nil {
		return err
	}
	if err := m.Check(); err != nil {
		return inputError(fmt.Errorf("%s: a gometal image for %s: %v", f.target, h.Arch, err))
	}
	if !h.HasPayload() {
		return inputError(fmt.Errorf("%s: a kernel without a program; make an image with gometal build", f.target))
	}
	qemuBin, err := qemu.Find(f.qemu, arch)
	if err != nil {
		return inputError(err)
	}
	// The image's own command line rules; the kernel keeps only what says
	// how the exit status leaves (arm64: semihosting).
	accel := chooseAccel("run", f.accel, arch)
	cfg := qemu.Config{Machine: m, Binary: qemuBin, SMP: int(f.cores), Memory: f.mem, Kernel: f.target, GDB: f.gdb,
		Append: strings.Join(m.ExitFor(accel).KernelArgs(), " "), Accel: accel}
	if err := cfg.Validate(); err != nil {
		return inputError(err)
	}
	if f.verbose {
		fmt.Fprintf(os.Stderr, "gometal: %s\n", qemu.ShellQuote(cfg.Args()))
	}
	log := console.NewBannerFilter(os.Stdout, f.verbose)
	res, err := qemu.Run(cfg, qemu.Stdio{Stdin: os.Stdin, Stdout: log, Stderr: os.Stderr}, qemu.RunOptions{Timeout: f.timeout})
	log.Flush()
	if err != nil {
		return fmt.Errorf("starting QEMU: %v", err)
	}
	return exitStatusOf(res, f.timeout)
}

// sealedFlags rejects what cannot apply to a built image.
func sealedFlags(f *runFlags) error {
	sealed := map[string]bool{
		"arguments": len(f.args) > 0, "-env": len(f.env) > 0, "-add": len(f.add) > 0,
		"-kernel-args": f.kernelArgs != "", "-kernel": f.kernel != "", "-sched": f.sched != "",
		"-mount": len(f.mount) > 0, "-device": len(f.devices) > 0, "-disk": len(f.disks) > 0,
		"-net": f.net.on, "-p": len(f.publish) > 0, "-tags": f.tags != "", "-ldflags": f.ldflags != "",
	}
	for _, name := range []string{"arguments", "-env", "-add", "-kernel-args", "-kernel", "-sched", "-mount", "-device", "-disk", "-net", "-p", "-tags", "-ldflags"} {
		if sealed[name] {
			return usageErrorf("run", "run: %s: %s is a built image; its program, arguments, files and kernel are inside it (rebuild it with gometal build)", name, f.target)
		}
	}
	return nil
}
