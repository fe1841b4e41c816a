//! AArch64 (ARMv8-A at EL1, programs at EL0, under PSCI firmware such as
//! QEMU's own or ARM Trusted Firmware): the assembly entry points and the
//! architecture interface's aarch64 side.

pub mod acpi;
pub mod context;
pub mod cpu;
pub mod cpus;
mod earlycon;
pub mod efi;
pub mod elf;
pub mod imagecheck;
#[deny(unsafe_code)]
pub mod ipi;
pub mod machine;
pub mod mmu;
pub mod power;
mod psci;
#[deny(unsafe_code)]
pub mod signal;
pub mod sysreg;
pub mod timer;
pub mod trap;
pub mod userguard;

use context::{Context, FpState, TrapFrame, PSTATE_USER_MASK};

core::arch::global_asm!(include_str!("entry.S"));
core::arch::global_asm!(include_str!("trap.S"));
core::arch::global_asm!(include_str!("switch.S"));
core::arch::global_asm!(include_str!("fp.S"));
core::arch::global_asm!(include_str!("vdso.S"));

extern "C" {
    fn switch_context(old: *mut Context, new: *const Context);
    fn user_return(frame: *mut TrapFrame) -> !;
    fn fp_save(state: *mut FpState);
    fn fp_restore(state: *const FpState);
    fn trap_vector();
    fn thread_trampoline();
}

/// Saves the running kernel context in `old` and resumes `new`.
///
/// # Safety
/// Both contexts must stay valid (not moved or freed) until the switch back,
/// and `new` must hold a context saved by this function or built by
/// [`Context::new_thread`].
pub unsafe fn switch(old: *mut Context, new: *const Context) {
    // SAFETY: forwarded from the caller's contract.
    unsafe { switch_context(old, new) }
}

/// Returns to EL0 with the registers in `frame`; the next exception comes
/// back to the kernel on the stack `kernel_sp` (SP_EL1 holds the frame
/// meanwhile; the per-CPU pointer stays in TPIDR_EL1).
///
/// # Safety
/// `frame` must stay valid while the thread runs in user mode (it is where
/// the next exception saves registers), and `kernel_sp` must be the top of
/// the thread's kernel stack.
pub unsafe fn enter_user(frame: *mut TrapFrame, kernel_sp: u64, cpu_local: usize) -> ! {
    // SAFETY: the caller guarantees the frame is valid and exclusively ours.
    unsafe {
        (*frame).kernel_sp = kernel_sp;
        (*frame).kernel_tp = cpu_local as u64;
        // EL0t with every interrupt unmasked; only the flags are the thread's.
        (*frame).pstate &= PSTATE_USER_MASK;
        // Page-table writes reach the walker before the program runs.
        core::arch::asm!("dsb ish", options(nostack));
    }
    // SAFETY: forwarded from the caller's contract.
    unsafe { user_return(frame) }
}

/// Saves the CPU's FP/SIMD registers into `state`.
pub fn save_fp(state: &mut FpState) {
    // SAFETY: fp_save writes exactly size_of::<FpState>() bytes to a valid,
    // exclusively borrowed, 16-aligned FpState; CPACR_EL1 enables FP.
    unsafe { fp_save(state) }
}

/// Loads the CPU's FP/SIMD registers from `state`.
pub fn restore_fp(state: &FpState) {
    // SAFETY: fp_restore only reads the FpState it is given.
    unsafe { fp_restore(state) }
}

/// Brings up what the boot CPU needs before devices: the timer's
/// interrupt and the PSCI conduit the firmware named.
pub fn init_platform(m: &machine::MachineInfo) {
    psci::set_method_smc(m.psci_smc);
    timer::configure(m.timer);
}

/// The host enabled semihosting (kernel option `semihosting`): the exit
/// status leaves through it.
pub fn enable_semihosting() {
    power::enable_semihosting();
}
