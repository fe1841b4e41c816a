//! The CPU's guard against the kernel touching user memory directly:
//! sstatus.SUM (permit Supervisor User Memory access) stays clear, so an
//! S-mode load or store to a page with the U bit takes a page fault. The
//! kernel's own user copies (mm/uaccess.rs) never use a user virtual
//! address: they walk the program's page table and copy through the
//! linear map, so SUM is never set.
//!
//! `probe_user_load` is the self-check's stray access (mm/strayaccess.rs):
//! one byte loaded from a user address in S-mode, its fault caught by
//! trap.S, which resumes at the probe's fixup instead of panicking.

extern "C" {
    fn user_access_probe(addr: u64) -> u64;
}

/// What keeps kernel code from reaching user memory directly (or why
/// nothing does: never, here).
pub fn user_access_guard() -> Result<&'static str, &'static str> {
    Ok("sstatus.SUM clear")
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
    Err(match super::csr::scause() {
        13 => "a load page fault",
        5 => "a load access fault",
        _ => "an exception",
    })
}
