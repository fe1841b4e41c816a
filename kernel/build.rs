//! Links the kernel with its own linker script: the boot stub at the physical
//! load address, everything else in the upper half of Sv39.
fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.starts_with("riscv64") {
        println!("cargo:rustc-link-arg-bin=gometal-kernel=-T{dir}/linker.ld");
        println!("cargo:rustc-link-arg-bin=gometal-kernel=--no-relax");
        // A hash of the output, so `gometal version` can name the build.
        println!("cargo:rustc-link-arg-bin=gometal-kernel=--build-id=sha1");
    }
    println!("cargo:rerun-if-changed=linker.ld");
    println!("cargo:rerun-if-changed=src/arch/entry.S");
    println!("cargo:rerun-if-changed=src/arch/trap.S");
    println!("cargo:rerun-if-changed=src/arch/switch.S");
}
