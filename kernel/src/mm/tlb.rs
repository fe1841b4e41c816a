//! TLB maintenance after page-table entries are removed or weakened.

use crate::arch;
use crate::memlayout::PAGE_SIZE;
use spin::Once;

/// Beyond this many pages a full flush is cheaper than one per page.
const FULL_FLUSH_PAGES: u64 = 64;

/// Makes [start, end) reread the page tables on this CPU and, with
/// `everywhere`, on every other CPU too where the architecture broadcasts
/// TLB maintenance (arm64's TLBI ...IS): true when it did, so no shootdown
/// is needed (the retired frames may be freed at once).
pub fn flush_range(start: u64, end: u64, everywhere: bool) -> bool {
    if everywhere && arch::flush_user_range_all_cpus(start, end) {
        return true;
    }
    let pages = (end.saturating_sub(start)).div_ceil(PAGE_SIZE as u64);
    if pages > FULL_FLUSH_PAGES {
        arch::flush_tlb_all();
        return false;
    }
    let mut va = start;
    while va < end {
        arch::flush_tlb_page(va);
        va += PAGE_SIZE as u64;
    }
    false
}

/// How other CPUs' TLBs are flushed for a root: the scheduler's IPI
/// shootdown (sched/smp.rs), registered at boot because mm sits below the
/// scheduler. Before that only the boot CPU runs.
static SHOOTDOWN: Once<fn(u64)> = Once::new();

pub fn register_shootdown(f: fn(u64)) {
    SHOOTDOWN.call_once(|| f);
}

/// Flushes the other CPUs' TLBs for `r.root`, then frees the retired
/// frames. Call with no lock held (see sched/smp.rs's shootdown).
pub fn shootdown_and_free(r: super::addrspace::Retired) {
    match SHOOTDOWN.get() {
        _ if !r.shootdown => {} // flush_range reached every CPU already
        Some(shootdown) => shootdown(r.root),
        None => arch::flush_tlb_all(),
    }
    for pa in r.frames {
        super::frames::free(pa);
    }
}
