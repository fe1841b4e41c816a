package kernelimage

import (
	"debug/elf"
	"fmt"
	"os"

	"gometal.dev/gometal/internal/bootimage"
)

// One kernel per architecture gometal runs (GOARCH names): the Rust
// target cargo builds it for, the environment variable that names a
// kernel file for it, and the file embedded in gometal.
type archKernel struct {
	target, env, embedded string
}

var archKernels = map[string]archKernel{
	"riscv64": {"riscv64gc-unknown-none-elf", EnvKernel, embeddedName},
	// A soft-float target: the kernel never touches the FP/SIMD registers,
	// which hold the running program's values (arch/aarch64/fp.S).
	"arm64": {"aarch64-unknown-none-softfloat", EnvKernel + "_ARM64", "gometal-kernel-arm64.elf"},
}

// DefaultArch is the architecture of a Finder or build that names none.
const DefaultArch = "riscv64"

func kernelFor(arch string) archKernel {
	if arch == "" {
		arch = DefaultArch
	}
	k, ok := archKernels[arch]
	if !ok {
		panic("kernelimage: no kernel for architecture " + arch) // the machine table rules this out
	}
	return k
}

// TargetFor is the Rust target the kernel for arch is built for.
func TargetFor(arch string) string { return kernelFor(arch).target }

// EnvFor names the environment variable holding the path of arch's
// kernel: GOMETAL_KERNEL (riscv64), GOMETAL_KERNEL_ARM64.
func EnvFor(arch string) string { return kernelFor(arch).env }

// EmbeddedPathFor is arch's committed kernel, relative to the module root.
func EmbeddedPathFor(arch string) string { return "internal/kernelimage/" + kernelFor(arch).embedded }

// ArchOf says which architecture the kernel file at path (an ELF or a
// flat Image) is for, as a GOARCH name.
func ArchOf(path string) (string, error) {
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		switch f.Machine {
		case elf.EM_RISCV:
			return "riscv64", nil
		case elf.EM_AARCH64:
			return "arm64", nil
		}
		return "", fmt.Errorf("kernel %s: an ELF for %v, not riscv64 or arm64", path, f.Machine)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("kernel %s: %w", path, err)
	}
	h, err := bootimage.ReadHeader(data)
	if err != nil {
		return "", fmt.Errorf("kernel %s: %w", path, err)
	}
	return h.Arch, nil
}
