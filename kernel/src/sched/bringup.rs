//! Starting the other CPUs through the firmware (arch::start_cpu: SBI HSM
//! on riscv64). Each CPU moves OFFLINE → BOOTSTRAP → ONLINE (or ERROR);
//! CPUs beyond the `cores=` limit or MAX_CPUS are PARKED, never started.
//!
//! All CPUs are started at once and then waited for together. A CPU that
//! has not come up by the deadline gets one more start request (unless the
//! firmware says it is already running) and a second wait; after that it is ERROR,
//! its index is never reused, and if it turns up late it parks itself.

use crate::param::{CPU_STACK_SIZE, MAX_CPUS};
use crate::sched::clock;
use crate::sched::cpu::{self, CpuState};
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

/// How long started CPUs get to reach Rust. Generous: under QEMU on a busy
/// host a vCPU thread may wait long for a host core.
const START_TIMEOUT_NS: u64 = 5_000_000_000;

/// Starts every CPU in `hwids` except the boot CPU (index 0), up to
/// `limit` CPUs in all. Returns how many are online, the boot CPU included.
pub fn start_all(hwids: &[usize], boot_hwid: usize, limit: usize, verbose: bool) -> usize {
    let mut started: Vec<(usize, usize)> = Vec::new(); // (index, hwid)
    for (n, &hwid) in hwids.iter().filter(|&&id| id != boot_hwid).enumerate() {
        let index = n + 1;
        if index >= limit.min(MAX_CPUS) {
            if verbose {
                crate::println!("gometal: cpu {hwid}: parked (cores={limit})");
            }
            continue;
        }
        cpu::cpu(index).hwid.store(hwid, Ordering::Relaxed);
        cpu::cpu(index).set_state(CpuState::Bootstrap);
        if request_start(hwid) {
            started.push((index, hwid));
        } else {
            cpu::cpu(index).set_state(CpuState::Error);
        }
    }
    let late = wait_online(&started);
    let retried: Vec<(usize, usize)> = late.into_iter().filter(|&(_, id)| request_start(id)).collect();
    wait_online(&retried);
    for h in cpu::all() {
        if h.transition(CpuState::Bootstrap, CpuState::Error) {
            // The firmware's view helps tell a CPU stuck in firmware from
            // one that started and went astray.
            crate::println!(
                "gometal: cpu {} did not start ({}); continuing without it",
                h.hwid(),
                crate::arch::describe_cpu_status(h.hwid())
            );
        }
    }
    if verbose {
        for &(index, hwid) in &started {
            if cpu::cpu(index).state() == CpuState::Online {
                crate::println!("gometal: cpu {hwid}: online");
            }
        }
    }
    cpu::online_count()
}

/// Asks the firmware to start `hwid` with a fresh stack; true if it will
/// run (or already runs).
fn request_start(hwid: usize) -> bool {
    // The stack lives for the rest of the boot: leak it on purpose.
    let stack = vec![0u8; CPU_STACK_SIZE].leak();
    let top = (stack.as_ptr() as usize + CPU_STACK_SIZE) & !15;
    matches!(crate::arch::start_cpu(hwid, top as u64), Ok(()) | Err(crate::arch::StartError::AlreadyRunning))
}

/// Waits until every CPU in `cpus` is online or the deadline passes;
/// returns those that are not.
fn wait_online(cpus: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let deadline = clock::monotonic_ns() + START_TIMEOUT_NS;
    let pending = || cpus.iter().copied().filter(|&(i, _)| cpu::cpu(i).state() != CpuState::Online);
    while pending().next().is_some() && clock::monotonic_ns() < deadline {
        core::hint::spin_loop();
    }
    pending().collect()
}

/// The index the boot CPU gave `hwid`, if it is still waiting for it.
pub fn index_of(hwid: usize) -> Option<usize> {
    cpu::all()
        .iter()
        .position(|h| h.hwid() == hwid && h.state() == CpuState::Bootstrap)
}
