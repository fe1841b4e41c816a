//! Starting the other CPUs with SBI HSM. Each CPU moves OFFLINE →
//! BOOTSTRAP → ONLINE (or ERROR); CPUs beyond the `cores=` limit or
//! MAX_HARTS are PARKED, never started.
//!
//! All CPUs are started at once and then waited for together. A CPU that
//! has not come up by the deadline gets one more cpu_start (unless the SBI
//! says it is already running) and a second wait; after that it is ERROR,
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
/// SBI error: the CPU is already started (or starting).
const SBI_ERR_ALREADY_AVAILABLE: usize = (-6isize) as usize;

/// Starts every CPU in `cpu_ids` except the boot CPU (index 0), up to
/// `limit` CPUs in all. Returns how many are online, the boot CPU included.
pub fn start_all(hwids: &[usize], boot_hwid: usize, limit: usize, verbose: bool) -> usize {
    let mut started: Vec<(usize, usize)> = Vec::new(); // (index, hardware CPU id)
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
            // The SBI's view helps tell a CPU stuck in firmware (2 = start
            // pending) from one that started and went astray (0 = started).
            let sbi = sbi_rt::hart_get_status(h.hwid());
            crate::println!(
                "gometal: cpu {} did not start (SBI status {}, error {}); continuing without it",
                h.hwid(),
                sbi.value as isize,
                sbi.error as isize
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

/// Asks the SBI to start `hardware CPU id` with a fresh stack; true if it will run
/// (or already runs).
fn request_start(hwid: usize) -> bool {
    // The stack lives for the rest of the boot: leak it on purpose.
    let stack = vec![0u8; CPU_STACK_SIZE].leak();
    let top = (stack.as_ptr() as usize + CPU_STACK_SIZE) & !15;
    crate::arch::publish_secondary_stack(hwid, top as u64);
    let ret = sbi_rt::hart_start(hwid, crate::arch::secondary_entry_pa() as usize, top);
    ret.is_ok() || ret.error == SBI_ERR_ALREADY_AVAILABLE
}

/// Waits until every CPU in `CPUs` is online or the deadline passes;
/// returns those that are not.
fn wait_online(cpus: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let deadline = clock::monotonic_ns() + START_TIMEOUT_NS;
    let pending = || cpus.iter().copied().filter(|&(i, _)| cpu::cpu(i).state() != CpuState::Online);
    while pending().next().is_some() && clock::monotonic_ns() < deadline {
        core::hint::spin_loop();
    }
    pending().collect()
}

/// The index the boot CPU gave `hardware CPU id`, if it is still waiting for it.
pub fn index_of(hwid: usize) -> Option<usize> {
    cpu::all()
        .iter()
        .position(|h| h.hwid() == hwid && h.state() == CpuState::Bootstrap)
}
