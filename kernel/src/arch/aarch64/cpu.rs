//! The running CPU: its per-CPU pointer (TPIDR_EL1, which EL0 cannot
//! read), its exception vector and counter setup, waiting for an
//! interrupt, and the virtual counter every CPU shares.

use super::sysreg::{read_sysreg, write_sysreg};

/// CNTKCTL_EL1.EL0VCTEN: EL0 may read the virtual counter (the vDSO does).
const EL0VCTEN: u64 = 1 << 1;

/// Per-CPU setup: the exception vector, PAN where the CPU has it
/// (userguard.rs), EL0's access to the virtual counter, the timer stopped
/// (the interrupt controller's side of this CPU is its driver's:
/// drivers/irqchip).
pub fn init_cpu() {
    // The vector table (trap.S) is 2 KiB aligned, as VBAR_EL1 requires.
    write_sysreg!("vbar_el1", super::trap_vector as *const () as u64);
    super::userguard::init_cpu();
    write_sysreg!("cntkctl_el1", EL0VCTEN);
    super::mmu::init_asids();
    super::timer::set_timer(u64::MAX);
}

/// The running CPU's per-CPU pointer (0 before [`set_cpu_local`]).
pub fn cpu_local() -> usize {
    read_sysreg!("tpidr_el1") as usize
}

/// Sets this CPU's per-CPU pointer.
///
/// # Safety
/// `p` must point to this CPU's per-CPU structure for as long as the
/// kernel runs here.
pub unsafe fn set_cpu_local(p: usize) {
    write_sysreg!("tpidr_el1", p as u64);
}

/// Waits for an interrupt to become pending (it is not taken: the kernel
/// runs with interrupts masked and the caller polls).
pub fn wait_for_interrupt() {
    // SAFETY: wfi has no memory effects.
    unsafe { core::arch::asm!("wfi", options(nomem, nostack)) }
}

/// The virtual counter (CNTVCT_EL0): ticks at CNTFRQ_EL0, equal on every CPU.
pub fn ticks() -> u64 {
    // SAFETY: the isb orders the read after earlier instructions, as
    // Linux's arch_timer does; no memory effects.
    unsafe { core::arch::asm!("isb", options(nomem, nostack)) };
    read_sysreg!("cntvct_el0")
}

/// The counter's frequency in Hz.
pub fn counter_hz() -> u64 {
    read_sysreg!("cntfrq_el0")
}
