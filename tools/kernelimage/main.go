// Command kernelimage builds the gometal kernel from the checkout's
// kernel/ directory the way gometal itself does (release profile,
// reproducibly) and prints the ELF's path. With -refresh it also copies
// the image to internal/kernelimage/gometal-kernel.elf (riscv64) or
// gometal-kernel-arm64.elf (-arch arm64), the kernels embedded in
// gometal: `make kernel` runs it so, and the copies are then committed
// with the kernel change that produced them. With -checked it builds the
// checked kernel instead (cargo profile `checked`: debug assertions, so
// the lock-order checks, and overflow checks) into
// kernel/target/<target>/checked/, which make test boots
// (tests/checked_test.go); it is never embedded.
//
//	go run ./tools/kernelimage                     # build only (make kernel-build)
//	go run ./tools/kernelimage -arch arm64         # the arm64 kernel
//	go run ./tools/kernelimage -refresh            # build and refresh the embedded copy (make kernel)
//	go run ./tools/kernelimage -checked -arch arm64 # the checked arm64 kernel (make kernel-checked)
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"gometal.dev/gometal/internal/kernelimage"
)

func main() {
	arch := flag.String("arch", kernelimage.DefaultArch, "the architecture whose kernel to build: riscv64 or arm64")
	refresh := flag.Bool("refresh", false, "copy the built kernel to internal/kernelimage/ (gometal-kernel.elf, gometal-kernel-arm64.elf)")
	checked := flag.Bool("checked", false, "build the checked kernel (debug assertions: the lock-order checks; overflow checks) into kernel/target/<target>/checked/")
	flag.Parse()
	profile := kernelimage.ProfileRelease
	if *checked {
		if *refresh {
			fmt.Fprintln(os.Stderr, "kernelimage: -checked and -refresh: only the release kernel is embedded in gometal")
			os.Exit(2)
		}
		profile = kernelimage.ProfileChecked
	}
	if err := run(*arch, profile, *refresh); err != nil {
		fmt.Fprintf(os.Stderr, "kernelimage: %v\n", err)
		os.Exit(1)
	}
}

func run(arch, profile string, refresh bool) error {
	if arch != "riscv64" && arch != "arm64" {
		return fmt.Errorf("-arch %q: want riscv64 or arm64", arch)
	}
	embeddedPath := kernelimage.EmbeddedPathFor(arch)
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	kdir := kernelimage.CheckoutKernelDir(wd)
	if kdir == "" {
		return fmt.Errorf("%s is not inside a gometal checkout (no kernel/Cargo.toml above it)", wd)
	}
	elf, err := kernelimage.CargoBuildProfile(kdir, arch, profile, func() {
		fmt.Fprintf(os.Stderr, "kernelimage: building the %s kernel (%s)...\n", arch, profile)
	})
	if err != nil {
		return err
	}
	fmt.Println(elf)
	if !refresh {
		return nil
	}
	data, err := os.ReadFile(elf)
	if err != nil {
		return err
	}
	dst := filepath.Join(filepath.Dir(kdir), embeddedPath)
	if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, data) {
		fmt.Fprintf(os.Stderr, "kernelimage: %s is up to date\n", embeddedPath)
		return nil
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "kernelimage: refreshed %s; commit it with the kernel change\n", embeddedPath)
	return nil
}
