//! The running hart: its per-CPU pointer (kept in tp while in the kernel),
//! its trap and counter setup, waiting for an interrupt, and the `time`
//! counter every hart shares.

use super::csr;

/// Per-hart setup: the trap vector, which interrupts may become pending
/// (never taken in S-mode), FP enabled, user access to the counters; and
/// the hart's machine ids for riscv_hwprobe (hartinfo.rs).
pub fn init_cpu() {
    csr::init_hart(super::trap_vector as *const () as usize);
    super::hartinfo::record_ids();
}

/// The running hart's per-CPU pointer (0 before [`set_cpu_local`]).
pub fn cpu_local() -> usize {
    csr::tp() as usize
}

/// Sets this hart's per-CPU pointer.
///
/// # Safety
/// `p` must point to this hart's per-CPU structure for as long as the
/// kernel runs here (trap entry restores it from the TrapFrame).
pub unsafe fn set_cpu_local(p: usize) {
    // SAFETY: forwarded from the caller's contract.
    unsafe { csr::set_tp(p as u64) }
}

/// Waits for an interrupt to become pending (it is not taken: S-mode runs
/// with interrupts disabled and the caller polls).
pub fn wait_for_interrupt() {
    // SAFETY: wfi has no memory effects.
    unsafe { core::arch::asm!("wfi") }
}

/// The `time` counter: ticks at the device tree's timebase-frequency,
/// equal on every hart.
pub fn ticks() -> u64 {
    csr::time()
}
