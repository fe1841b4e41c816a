//! Starting CPUs through PSCI CPU_ON, and what PSCI says of a CPU that did
//! not come up.

use super::psci;
use crate::arch::StartError;
use alloc::format;
use alloc::string::String;

extern "C" {
    fn secondary_start();
}

/// Asks the firmware to start the CPU with hardware id (MPIDR affinity)
/// `hwid` at the secondary entry (entry.S) with the stack `stack_top` (a
/// kernel virtual address, passed in x0).
pub fn start_cpu(hwid: usize, stack_top: u64) -> Result<(), StartError> {
    // The CPU starts with the MMU off: the entry's physical address.
    let entry = super::mmu::virt_to_phys(secondary_start as *const () as u64);
    match psci::cpu_on(hwid as u64, entry, stack_top) {
        0 => Ok(()),
        psci::ALREADY_ON | psci::ON_PENDING => Err(StartError::AlreadyRunning),
        e => Err(StartError::Refused(e)),
    }
}

/// PSCI's view of a CPU that did not come up: AFFINITY_INFO 0 (on) means
/// it went astray, 1 (off) that it never started, 2 that it is pending.
pub fn describe_cpu_status(hwid: usize) -> String {
    format!("PSCI AFFINITY_INFO {}", psci::affinity_info(hwid as u64))
}
