//! The vDSO image assembled in each architecture's vdso.S: the bytes to
//! copy into the page, where its data words are, and where its
//! rt_sigreturn entry is. Every vdso.S defines the same four symbols, so
//! one copy of the accessors serves both (kernel/src/vdso.rs fills the
//! page; it may not hold `unsafe`).

extern "C" {
    static vdso_start: u8;
    static vdso_end: u8;
    static vdso_data_offset: u64;
    static vdso_sigreturn_offset: u64;
}

/// Offset of the data words (the kernel's vdso.rs fills them) in the image.
pub fn data_offset() -> usize {
    // SAFETY: an immutable word in .rodata, written by the assembler.
    unsafe { vdso_data_offset as usize }
}

/// Offset of the rt_sigreturn entry (arm64: `__kernel_rt_sigreturn`) in
/// the image.
pub fn sigreturn_offset() -> usize {
    // SAFETY: an immutable word in .rodata, written by the assembler.
    unsafe { vdso_sigreturn_offset as usize }
}

/// The assembled image.
pub fn image() -> &'static [u8] {
    let start = core::ptr::addr_of!(vdso_start);
    let len = core::ptr::addr_of!(vdso_end) as usize - start as usize;
    // SAFETY: vdso_start..vdso_end is one 4 KiB block of .rodata that the
    // assembler filled; nothing writes to it.
    unsafe { core::slice::from_raw_parts(start, len) }
}
