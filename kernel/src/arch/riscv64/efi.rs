//! UEFI on riscv64: not an entry of this kernel. The riscv64 image is a
//! Linux Image that OpenSBI, U-Boot's `booti` and QEMU's `-kernel` start
//! with a device tree; it carries no PE/COFF header, so no UEFI memory map
//! or RSDP is ever handed over.

/// Usable RAM from a UEFI memory map: none (the device tree's is used).
pub fn firmware_memory() -> Option<&'static [[u64; 2]]> {
    None
}

/// The RSDP a UEFI firmware named: none.
pub fn firmware_rsdp() -> Option<u64> {
    None
}
