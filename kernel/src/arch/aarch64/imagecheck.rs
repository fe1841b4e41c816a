//! What entry.S found when it checked the image's code against the
//! descriptor's checksum. It cannot print (arm64 has no firmware console
//! before the device tree is read), so a damaged image boots on, flagged,
//! and the kernel says so on its console and stops (start/mod.rs).

extern "C" {
    static kernel_code_damaged: u64;
}

/// Whether the image's code did not match its checksum.
pub fn image_code_damaged() -> bool {
    // SAFETY: written once by entry.S on the boot CPU before any Rust
    // runs, read-only afterwards.
    unsafe { core::ptr::read_volatile(core::ptr::addr_of!(kernel_code_damaged)) != 0 }
}
