// Command kernelimage builds the gometal kernel from the checkout's
// kernel/ directory the way gometal itself does (release profile,
// reproducibly) and prints the ELF's path. With -refresh it also copies
// the image to internal/kernelimage/gometal-kernel.elf, the kernel
// embedded in gometal: `make kernel` runs it so, and the copy is then
// committed with the kernel change that produced it.
//
//	go run ./tools/kernelimage            # build only (make kernel-build)
//	go run ./tools/kernelimage -refresh   # build and refresh the embedded copy (make kernel)
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
	refresh := flag.Bool("refresh", false, "copy the built kernel to "+kernelimage.EmbeddedPath)
	flag.Parse()
	if err := run(*refresh); err != nil {
		fmt.Fprintf(os.Stderr, "kernelimage: %v\n", err)
		os.Exit(1)
	}
}

func run(refresh bool) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	kdir := kernelimage.CheckoutKernelDir(wd)
	if kdir == "" {
		return fmt.Errorf("%s is not inside a gometal checkout (no kernel/Cargo.toml above it)", wd)
	}
	elf, err := kernelimage.CargoBuild(kdir, func() { fmt.Fprintln(os.Stderr, "kernelimage: building the kernel...") })
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
	dst := filepath.Join(filepath.Dir(kdir), kernelimage.EmbeddedPath)
	if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, data) {
		fmt.Fprintf(os.Stderr, "kernelimage: %s is up to date\n", kernelimage.EmbeddedPath)
		return nil
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "kernelimage: refreshed %s; commit it with the kernel change\n", kernelimage.EmbeddedPath)
	return nil
}
