//! RISC-V 64 specifics: the assembly entry points, trap frames, kernel
//! contexts, FP state and the few CSR operations the rest of the kernel needs.

pub mod csr;
#[deny(unsafe_code)]
pub mod frames;

pub use frames::{Context, FpState, TrapFrame};

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
    pub fn trap_vector();
    pub fn thread_trampoline();
    static secondary_start_pa: u64;
    static boot_page_table_pa: u64;
    static secondary_stacks_pa: u64;
}

/// Records the stack `hartid` is started with, for a hart that OpenSBI
/// releases into the cold-boot entry by mistake (see entry.S).
pub fn publish_secondary_stack(hartid: usize, top: u64) {
    if hartid >= crate::param::MAX_CPUS {
        return;
    }
    // SAFETY: an immutable word in .rodata, written by the linker.
    let table = unsafe { secondary_stacks_pa };
    let slot = crate::memlayout::phys_to_virt(table + 8 * hartid as u64) as *mut u64;
    // SAFETY: slot is inside the 64-entry table in the boot data section,
    // mapped by the linear map; a misdirected hart polls it with plain loads.
    unsafe { core::ptr::write_volatile(slot, top) };
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
}

/// Where harts started with SBI hart_start begin (a physical address).
pub fn secondary_entry_pa() -> u64 {
    // SAFETY: an immutable word in .rodata, written by the linker.
    unsafe { secondary_start_pa }
}

/// The physical address of the boot page table, the kernel's own root.
pub fn boot_page_table() -> u64 {
    // SAFETY: an immutable word in .rodata, written by the linker.
    unsafe { boot_page_table_pa }
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

/// Returns to user mode with the registers in `frame`.
///
/// # Safety
/// `frame` must stay valid while the thread runs in user mode (it is where
/// the next trap saves registers) and the hart must be set up for the return
/// ([`csr::prepare_user_return`]).
pub unsafe fn enter_user(frame: *mut TrapFrame) -> ! {
    // SAFETY: forwarded from the caller's contract.
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

/// Waits for an interrupt to become pending (it is not taken: S-mode runs
/// with interrupts disabled and the caller polls `sip`).
pub fn wait_for_interrupt() {
    // SAFETY: wfi has no memory effects.
    unsafe { core::arch::asm!("wfi") }
}
