//! TLB maintenance after page-table entries are removed or weakened.

use crate::arch;
use crate::memlayout::PAGE_SIZE;

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

/// Flushes the other CPUs' TLBs for `r.root`, then frees the retired
/// frames. Call with no lock held (see smp::shootdown).
pub fn shootdown_and_free(r: super::addrspace::Retired) {
    crate::smp::shootdown(r.root);
    for pa in r.frames {
        super::frames::free(pa);
    }
}
