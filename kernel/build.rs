//! Links the kernel with its architecture's linker script
//! (src/arch/<arch>/kernel.ld): the boot stub at the physical load address,
//! everything else in the upper half.
fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let target = std::env::var("TARGET").unwrap_or_default();
    let arch = if target.starts_with("riscv64") { "riscv64" } else if target.starts_with("aarch64") { "aarch64" } else { "" };
    if !arch.is_empty() {
        println!("cargo:rustc-link-arg-bin=gometal-kernel=-T{dir}/src/arch/{arch}/kernel.ld");
        if arch == "riscv64" {
            println!("cargo:rustc-link-arg-bin=gometal-kernel=--no-relax");
        }
        // A hash of the output, so `gometal version` can name the build.
        println!("cargo:rustc-link-arg-bin=gometal-kernel=--build-id=sha1");
        for file in ["kernel.ld", "entry.S", "trap.S", "switch.S", "fp.S", "vdso.S"] {
            println!("cargo:rerun-if-changed=src/arch/{arch}/{file}");
        }
    }
}
