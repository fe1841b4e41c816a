//! The CPU's guard against the kernel touching user memory directly: PAN
//! (Privileged Access Never, FEAT_PAN, ARMv8.1). With PSTATE.PAN set, a
//! load or store at EL1 to a page EL0 may access takes a permission
//! fault; with SCTLR_EL1.SPAN clear, every exception taken to EL1 sets PAN
//! again, so it stays on for the kernel's whole life. The kernel's own
//! user copies (mm/uaccess.rs) never use a user virtual address: they walk
//! the program's page table and copy through the linear map, so nothing
//! ever needs PAN cleared (no uaccess_enable, no LDTR/STTR). A CPU without
//! FEAT_PAN (QEMU's Cortex-A72, an ARMv8.0 core) has no such guard: a stray
//! access there succeeds silently, and `-v` says so.
//!
//! `probe_user_load` is the self-check's stray access (mm/strayaccess.rs):
//! one byte loaded from a user address at EL1, its fault caught by trap.S,
//! which resumes at the probe's fixup instead of panicking.

use super::sysreg::{read_sysreg, write_sysreg};
use core::sync::atomic::{AtomicBool, Ordering};

/// SCTLR_EL1.SPAN: 0 = an exception to EL1 sets PSTATE.PAN.
const SCTLR_SPAN: u64 = 1 << 23;
/// PSTATE.PAN as the PAN system register holds it.
const PAN_BIT: u64 = 1 << 22;

static PAN_ON: AtomicBool = AtomicBool::new(false);

extern "C" {
    fn user_access_probe(addr: u64) -> u64;
}

/// Whether this CPU implements FEAT_PAN (ID_AA64MMFR1_EL1.PAN, bits 23:20).
fn has_pan() -> bool {
    (read_sysreg!("id_aa64mmfr1_el1") >> 20) & 0xf != 0
}

/// Turns PAN on for this CPU if it has FEAT_PAN (each CPU, at its setup).
pub fn init_cpu() {
    if !has_pan() {
        return;
    }
    // SPAN is RES1 on a CPU without FEAT_PAN, so it is cleared only here.
    write_sysreg!("sctlr_el1", read_sysreg!("sctlr_el1") & !SCTLR_SPAN);
    write_sysreg!("s3_0_c4_c2_3", PAN_BIT); // PAN, by encoding: no assembler feature needed
    PAN_ON.store(true, Ordering::Relaxed);
}

/// What keeps kernel code from reaching user memory directly, or why
/// nothing does.
pub fn user_access_guard() -> Result<&'static str, &'static str> {
    if PAN_ON.load(Ordering::Relaxed) {
        Ok("PAN")
    } else {
        Err("the CPU lacks PAN (FEAT_PAN)")
    }
}

/// Loads a byte at user address `addr` directly, as a stray kernel access
/// would. Ok if it read; Err with the fault's kind if it faulted.
pub fn probe_user_load(addr: u64) -> Result<(), &'static str> {
    // SAFETY: a one-byte load whose fault, if any, trap.S catches (it
    // resumes at the probe's fixup); the byte is discarded, and the caller
    // passes an address of the running program, mapped and resident.
    if unsafe { user_access_probe(addr) } == 0 {
        return Ok(());
    }
    // ESR_EL1 still holds the probe's fault: interrupts are masked.
    let dfsc = read_sysreg!("esr_el1") & 0x3f;
    Err(match dfsc {
        0x0c..=0x0f => "a permission fault",
        0x04..=0x07 => "a translation fault",
        _ => "a data abort",
    })
}
