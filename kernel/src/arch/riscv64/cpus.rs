//! Starting harts through the SBI's hart state management (HSM) extension,
//! and what the SBI says of a hart that did not come up.

use crate::arch::StartError;
use alloc::format;
use alloc::string::String;

/// SBI error: the hart is already started (or starting).
const SBI_ERR_ALREADY_AVAILABLE: usize = (-6isize) as usize;

extern "C" {
    static secondary_start_pa: u64;
    static secondary_stacks_pa: u64;
}

/// Asks the SBI to start hart `hartid` at the secondary entry (entry.S)
/// with the stack `stack_top` (a kernel virtual address).
pub fn start_cpu(hartid: usize, stack_top: u64) -> Result<(), StartError> {
    publish_secondary_stack(hartid, stack_top);
    // SAFETY: an immutable word in .rodata, written by the linker.
    let entry = unsafe { secondary_start_pa };
    let ret = sbi_rt::hart_start(hartid, entry as usize, stack_top as usize);
    match ret.error {
        0 => Ok(()),
        SBI_ERR_ALREADY_AVAILABLE => Err(StartError::AlreadyRunning),
        e => Err(StartError::Refused(e as isize)),
    }
}

/// The SBI's view of a hart that did not come up: "start pending" (2)
/// means stuck in firmware, "started" (0) means it went astray.
pub fn describe_cpu_status(hartid: usize) -> String {
    let sbi = sbi_rt::hart_get_status(hartid);
    format!("SBI status {}, error {}", sbi.value as isize, sbi.error as isize)
}

/// Records the stack `hartid` is started with, for a hart that OpenSBI
/// releases into the cold-boot entry by mistake (see entry.S).
fn publish_secondary_stack(hartid: usize, top: u64) {
    if hartid >= crate::param::MAX_CPUS {
        return;
    }
    // SAFETY: an immutable word in .rodata, written by the linker.
    let table = unsafe { secondary_stacks_pa };
    let slot = super::mmu::phys_to_virt(table + 8 * hartid as u64) as *mut u64;
    // SAFETY: slot is inside the 64-entry table in the boot data section,
    // mapped by the linear map; a misdirected hart polls it with plain loads.
    unsafe { core::ptr::write_volatile(slot, top) };
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
}
