//! The CSR operations the riscv64 code uses, with names that say why.

use core::arch::asm;

pub const SSTATUS_SPP: u64 = 1 << 8;
pub const SSTATUS_SPIE: u64 = 1 << 5;
pub const SSTATUS_SIE: u64 = 1 << 1;
pub const SSTATUS_FS_INITIAL: u64 = 1 << 13;

pub const SIE_SSIE: u64 = 1 << 1;
pub const SIE_STIE: u64 = 1 << 5;
pub const SIE_SEIE: u64 = 1 << 9;

pub const SCAUSE_INTERRUPT: u64 = 1 << 63;

macro_rules! read_csr {
    ($name:literal) => {{
        let v: u64;
        // SAFETY: reading this CSR has no side effects.
        unsafe { asm!(concat!("csrr {}, ", $name), out(reg) v) };
        v
    }};
}

pub fn scause() -> u64 {
    read_csr!("scause")
}
pub fn stval() -> u64 {
    read_csr!("stval")
}
pub fn sip() -> u64 {
    read_csr!("sip")
}

/// The `time` CSR.
pub fn time() -> u64 {
    read_csr!("time")
}

/// Per-hart trap and counter setup: the trap vector, which interrupts may
/// become pending (they are never taken in S-mode: the kernel polls or takes
/// them from U-mode), FP enabled, and user access to the `time`, `cycle` and
/// `instret` counters (Go reads `time` directly).
pub fn init_hart(trap_vector: usize) {
    // SAFETY: installs the kernel's trap vector and sets enable bits; S-mode
    // interrupts stay globally disabled (sstatus.SIE = 0).
    unsafe {
        asm!("csrw stvec, {}", in(reg) trap_vector);
        asm!("csrw sscratch, zero");
        asm!("csrw sie, {}", in(reg) SIE_SSIE | SIE_STIE | SIE_SEIE);
        asm!("csrc sstatus, {}", in(reg) SSTATUS_SIE);
        asm!("csrs sstatus, {}", in(reg) SSTATUS_FS_INITIAL);
        asm!("csrw scounteren, {}", in(reg) 7u64);
    }
}

/// Makes the next `sret` go to U-mode with interrupts enabled there.
pub fn prepare_user_return() {
    // SAFETY: only changes where sret returns to and the interrupt enable it
    // restores; the kernel itself keeps running with SIE = 0.
    unsafe {
        asm!("csrc sstatus, {}", in(reg) SSTATUS_SPP);
        asm!("csrs sstatus, {}", in(reg) SSTATUS_SPIE);
    }
}

/// Clears a pending supervisor software interrupt (an IPI).
pub fn clear_software_interrupt() {
    // SAFETY: clears a pending-interrupt bit.
    unsafe { asm!("csrc sip, {}", in(reg) SIE_SSIE) }
}

/// Installs `root_pa` as the Sv39 root page table and flushes the TLB.
pub fn set_page_table(root_pa: u64) {
    let satp = (8u64 << 60) | (root_pa >> 12);
    // SAFETY: callers pass a root whose kernel half is the boot page table's,
    // so the kernel keeps running after the switch.
    unsafe { asm!("csrw satp, {}", "sfence.vma", in(reg) satp) }
}

/// Flushes this hart's TLB entries for all addresses.
pub fn flush_tlb_all() {
    // SAFETY: a TLB flush has no other effects.
    unsafe { asm!("sfence.vma") }
}

/// Flushes this hart's TLB entry for one page.
pub fn flush_tlb_page(va: u64) {
    // SAFETY: a TLB flush has no other effects.
    unsafe { asm!("sfence.vma {}, zero", in(reg) va) }
}

/// The running hart's per-CPU pointer (kept in tp while in the kernel).
pub fn tp() -> u64 {
    let v: u64;
    // SAFETY: reads a register.
    unsafe { asm!("mv {}, tp", out(reg) v) };
    v
}

/// Sets tp to this hart's per-CPU pointer.
///
/// # Safety
/// `v` must point to this hart's per-CPU structure for as long as the
/// kernel runs here.
pub unsafe fn set_tp(v: u64) {
    // SAFETY: forwarded from the caller's contract.
    unsafe { asm!("mv tp, {}", in(reg) v) }
}
