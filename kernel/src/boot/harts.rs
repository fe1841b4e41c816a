//! Starting the other harts with SBI HSM. Each hart moves OFFLINE →
//! BOOTSTRAP → ONLINE (or ERROR); harts beyond the `cores=` limit or
//! MAX_HARTS are PARKED, never started.
//!
//! All harts are started at once and then waited for together. A hart that
//! has not come up by the deadline gets one more hart_start (unless the SBI
//! says it is already running) and a second wait; after that it is ERROR,
//! its index is never reused, and if it turns up late it parks itself.

use crate::param::{HART_STACK_SIZE, MAX_HARTS};
use crate::sched::clock;
use crate::sched::hart::{self, HartState};
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

/// How long started harts get to reach Rust. Generous: under QEMU on a busy
/// host a vCPU thread may wait long for a host core.
const START_TIMEOUT_NS: u64 = 5_000_000_000;
/// SBI error: the hart is already started (or starting).
const SBI_ERR_ALREADY_AVAILABLE: usize = (-6isize) as usize;

/// Starts every hart in `hart_ids` except the boot hart (index 0), up to
/// `limit` harts in all. Returns how many are online, the boot hart included.
pub fn start_all(hart_ids: &[usize], boot_hartid: usize, limit: usize, verbose: bool) -> usize {
    let mut started: Vec<(usize, usize)> = Vec::new(); // (index, hartid)
    for (n, &hartid) in hart_ids.iter().filter(|&&id| id != boot_hartid).enumerate() {
        let index = n + 1;
        if index >= limit.min(MAX_HARTS) {
            if verbose {
                crate::println!("gometal: hart {hartid}: parked (cores={limit})");
            }
            continue;
        }
        hart::hart(index).hartid.store(hartid, Ordering::Relaxed);
        hart::hart(index).set_state(HartState::Bootstrap);
        if request_start(hartid) {
            started.push((index, hartid));
        } else {
            hart::hart(index).set_state(HartState::Error);
        }
    }
    let late = wait_online(&started);
    let retried: Vec<(usize, usize)> = late.into_iter().filter(|&(_, id)| request_start(id)).collect();
    wait_online(&retried);
    for h in hart::all() {
        if h.transition(HartState::Bootstrap, HartState::Error) {
            // The SBI's view helps tell a hart stuck in firmware (2 = start
            // pending) from one that started and went astray (0 = started).
            let sbi = sbi_rt::hart_get_status(h.hartid());
            crate::println!(
                "gometal: hart {} did not start (SBI status {}, error {}); continuing without it",
                h.hartid(),
                sbi.value as isize,
                sbi.error as isize
            );
        }
    }
    if verbose {
        for &(index, hartid) in &started {
            if hart::hart(index).state() == HartState::Online {
                crate::println!("gometal: hart {hartid}: online");
            }
        }
    }
    hart::online_count()
}

/// Asks the SBI to start `hartid` with a fresh stack; true if it will run
/// (or already runs).
fn request_start(hartid: usize) -> bool {
    // The stack lives for the rest of the boot: leak it on purpose.
    let stack = vec![0u8; HART_STACK_SIZE].leak();
    let top = (stack.as_ptr() as usize + HART_STACK_SIZE) & !15;
    crate::arch::publish_secondary_stack(hartid, top as u64);
    let ret = sbi_rt::hart_start(hartid, crate::arch::secondary_entry_pa() as usize, top);
    ret.is_ok() || ret.error == SBI_ERR_ALREADY_AVAILABLE
}

/// Waits until every hart in `harts` is online or the deadline passes;
/// returns those that are not.
fn wait_online(harts: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let deadline = clock::monotonic_ns() + START_TIMEOUT_NS;
    let pending = || harts.iter().copied().filter(|&(i, _)| hart::hart(i).state() != HartState::Online);
    while pending().next().is_some() && clock::monotonic_ns() < deadline {
        core::hint::spin_loop();
    }
    pending().collect()
}

/// The index the boot hart gave `hartid`, if it is still waiting for it.
pub fn index_of(hartid: usize) -> Option<usize> {
    hart::all()
        .iter()
        .position(|h| h.hartid() == hartid && h.state() == HartState::Bootstrap)
}
