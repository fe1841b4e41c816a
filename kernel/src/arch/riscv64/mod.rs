//! RISC-V 64 (RV64GC in S-mode under an SBI firmware such as OpenSBI): the
//! assembly entry points and the architecture interface's riscv64 side.
//! RISC-V calls its CPUs harts; so does this folder.

pub mod acpi;
pub mod context;
mod csr;
pub mod cpu;
pub mod cpus;
#[deny(unsafe_code)]
pub mod efi;
#[deny(unsafe_code)]
pub mod hartinfo;
#[deny(unsafe_code)]
pub mod elf;
#[deny(unsafe_code)]
pub mod imagecheck;
#[deny(unsafe_code)]
pub mod ipi;
pub mod machine;
pub mod mmu;
pub mod power;
#[deny(unsafe_code)]
pub mod signal;
#[deny(unsafe_code)]
pub mod timer;
pub mod trap;
pub mod userguard;

use context::{Context, FpState, TrapFrame};

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

/// Returns to user mode with the registers in `frame`; the next trap comes
/// back to the kernel on the stack `kernel_sp` with the per-CPU pointer
/// `cpu_local`.
///
/// # Safety
/// `frame` must stay valid while the thread runs in user mode (it is where
/// the next trap saves registers), and `kernel_sp` must be the top of the
/// thread's kernel stack.
pub unsafe fn enter_user(frame: *mut TrapFrame, kernel_sp: u64, cpu_local: usize) -> ! {
    // SAFETY: the caller guarantees the frame is valid and exclusively ours.
    unsafe {
        (*frame).kernel_sp = kernel_sp;
        (*frame).kernel_tp = cpu_local as u64;
    }
    csr::prepare_user_return();
    // SAFETY: forwarded from the caller's contract; sstatus is set up above.
    unsafe { user_return(frame) }
}

/// Saves the hart's floating-point registers into `state`.
pub fn save_fp(state: &mut FpState) {
    // SAFETY: fp_save writes exactly size_of::<FpState>() bytes to a valid,
    // exclusively borrowed FpState; FP is enabled in sstatus on every hart.
    unsafe { fp_save(state) }
}

/// Loads the hart's floating-point registers from `state`.
pub fn restore_fp(state: &FpState) {
    // SAFETY: fp_restore only reads the FpState it is given.
    unsafe { fp_restore(state) }
}

/// Brings up what the boot hart needs before devices: the power-off
/// device the device tree named.
pub fn init_platform(m: &machine::MachineInfo) {
    if let Some(pa) = m.test_device {
        // SAFETY: the address of the device tree's sifive,test0 node.
        unsafe { power::init(pa) };
    }
}

/// Semihosting is not used here: QEMU's test device carries the exit
/// status (power.rs).
pub fn enable_semihosting() {}
