//! Starting the other harts with SBI HSM. Each hart moves OFFLINE →
//! BOOTSTRAP → ONLINE (or ERROR after a retry); harts beyond the `cores=`
//! limit or MAX_HARTS are PARKED, never started.

use crate::param::{HART_STACK_SIZE, MAX_HARTS};
use crate::sched::clock;
use crate::sched::hart::{self, HartState};
use alloc::vec;

/// How long a started hart gets to reach Rust before it is retried.
const START_TIMEOUT_NS: u64 = 200_000_000;

/// Starts every hart in `hart_ids` except the boot hart (index 0), up to
/// `limit` harts in all. Returns how many are online, the boot hart included.
pub fn start_all(hart_ids: &[usize], boot_hartid: usize, limit: usize, verbose: bool) -> usize {
    let mut index = 1;
    for &hartid in hart_ids.iter().filter(|&&id| id != boot_hartid) {
        if index >= limit.min(MAX_HARTS) {
            if verbose {
                crate::println!("gometal: hart {hartid}: parked (cores={limit})");
            }
            continue;
        }
        let h = hart::hart(index);
        h.hartid.store(hartid, core::sync::atomic::Ordering::Relaxed);
        let ok = start_one(index, hartid) || start_one(index, hartid);
        if ok {
            index += 1;
        } else {
            h.set_state(HartState::Error);
            crate::println!("gometal: hart {hartid} did not start; continuing without it");
            // Leave this index to the next hart.
        }
        if verbose && ok {
            crate::println!("gometal: hart {hartid}: online");
        }
    }
    hart::online_count()
}

fn start_one(index: usize, hartid: usize) -> bool {
    let h = hart::hart(index);
    h.set_state(HartState::Bootstrap);
    // The stack lives for the rest of the boot: leak it on purpose.
    let stack = vec![0u8; HART_STACK_SIZE].leak();
    let top = (stack.as_ptr() as usize + HART_STACK_SIZE) & !15;
    let entry = crate::arch::secondary_entry_pa() as usize;
    let ret = sbi_rt::hart_start(hartid, entry, top);
    if ret.is_err() {
        return false;
    }
    let deadline = clock::monotonic_ns() + START_TIMEOUT_NS;
    while clock::monotonic_ns() < deadline {
        if h.state() == HartState::Online {
            return true;
        }
        core::hint::spin_loop();
    }
    false
}

/// The index the boot hart gave `hartid`, if any.
pub fn index_of(hartid: usize) -> Option<usize> {
    hart::all()
        .iter()
        .position(|h| h.hartid() == hartid && h.state() == HartState::Bootstrap)
}
