//! TLB maintenance after page-table entries are removed or weakened.

use crate::arch;
use crate::memlayout::PAGE_SIZE;
use spin::Once;

/// Beyond this many pages a full flush is cheaper than one per page.
const FULL_FLUSH_PAGES: u64 = 64;

/// Makes [start, end) reread the page tables on this CPU.
pub fn flush_range(start: u64, end: u64) {
    let pages = (end.saturating_sub(start)).div_ceil(PAGE_SIZE as u64);
    if pages > FULL_FLUSH_PAGES {
        arch::flush_tlb_all();
        return;
    }
    let mut va = start;
    while va < end {
        arch::flush_tlb_page(va);
        va += PAGE_SIZE as u64;
    }
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
        Some(shootdown) => shootdown(r.root),
        None => arch::flush_tlb_all(),
    }
    for pa in r.frames {
        super::frames::free(pa);
    }
}
