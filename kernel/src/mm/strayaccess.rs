//! The self-check behind the user-memory boundary (`verbose`): the kernel
//! reaches the program's memory only through mm/uaccess.rs, which copies
//! through the linear map, never through a user address; a stray direct
//! access must fault instead (riscv64: sstatus.SUM clear; arm64: PAN, where
//! the CPU has it). At the program's first entry to user mode, with its
//! page table active, the kernel makes one such access to the program's
//! stack (mapped and resident: the loader wrote argv there) and says what
//! happened, so `-v` shows whether the guard holds on this CPU.

use core::sync::atomic::{AtomicBool, Ordering};

static PENDING: AtomicBool = AtomicBool::new(false);

/// Asks for the check at the program's first entry to user mode.
pub fn request() {
    PENDING.store(true, Ordering::Relaxed);
}

/// Runs the check once, if asked: `sp` is the program's stack pointer,
/// and the program's page table is this CPU's.
pub fn run_once(sp: u64) {
    if !PENDING.swap(false, Ordering::Relaxed) {
        return;
    }
    match (crate::arch::probe_user_load(sp), crate::arch::user_access_guard()) {
        (Err(fault), Ok(guard)) => crate::println!(
            "gometal: user memory guarded ({guard}): a direct kernel load from user address {sp:#x} took {fault}; copies go through mm/uaccess.rs"
        ),
        (Err(fault), Err(none)) => crate::println!("gometal: {none}, yet a direct kernel load from user address {sp:#x} took {fault}"),
        (Ok(()), Ok(guard)) => crate::println!("gometal: warning: {guard}, yet a direct kernel load from user address {sp:#x} read it"),
        (Ok(()), Err(none)) => crate::println!(
            "gometal: {none}: a direct kernel load from user address {sp:#x} read it; stray accesses to user memory would not fault"
        ),
    }
}
