//! Starting harts through the SBI's hart state management (HSM) extension,
//! and what the SBI says of a hart that did not come up.

use crate::arch::StartError;
use alloc::format;
use alloc::string::String;

/// SBI error: the hart is already started (or starting).
const SBI_ERR_ALREADY_AVAILABLE: usize = (-6isize) as usize;

extern "C" {
    fn secondary_start();
    static mut secondary_stacks: [u64; crate::param::MAX_CPUS];
}

/// Asks the SBI to start hart `hartid` at the secondary entry (entry.S)
/// with the stack `stack_top` (a kernel virtual address).
pub fn start_cpu(hartid: usize, stack_top: u64) -> Result<(), StartError> {
    publish_secondary_stack(hartid, stack_top);
    // The hart starts with the MMU off: the entry's physical address.
    let entry = super::mmu::virt_to_phys(secondary_start as *const () as u64);
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
    // SAFETY: slot is inside the table in entry.S's data (MAX_CPUS
    // entries, hartid checked above); only the boot hart writes it, and a
    // misdirected hart polls it with plain loads at its physical address.
    unsafe {
        let slot = core::ptr::addr_of_mut!(secondary_stacks[hartid]);
        core::ptr::write_volatile(slot, top);
    }
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
}
