//! Physical page frames for programs (page tables, user pages): a buddy
//! allocator of frame numbers, plus counters for the statistics the user sees.

use crate::memlayout::{phys_to_virt, PAGE_SIZE};
use buddy_system_allocator::FrameAllocator;
use core::sync::atomic::{AtomicUsize, Ordering};
use spin::Mutex;

static FRAMES: Mutex<FrameAllocator<32>> = Mutex::new(FrameAllocator::new());
static TOTAL: AtomicUsize = AtomicUsize::new(0);
static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

const SHIFT: u64 = 12;

pub fn add_range(start: u64, end: u64) {
    FRAMES.lock().add_frame((start >> SHIFT) as usize, (end >> SHIFT) as usize);
    TOTAL.fetch_add(((end - start) >> SHIFT) as usize, Ordering::Relaxed);
}

/// A zero-filled frame's physical address, or None when memory is exhausted.
pub fn alloc_zeroed() -> Option<u64> {
    let pa = (FRAMES.lock().alloc(1)? as u64) << SHIFT;
    frame_bytes(pa).fill(0);
    let used = IN_USE.fetch_add(1, Ordering::Relaxed) + 1;
    PEAK.fetch_max(used, Ordering::Relaxed);
    Some(pa)
}

/// `pages` physically contiguous frames (not zeroed), for kernel stacks.
pub fn alloc_contiguous(pages: usize) -> Option<u64> {
    let pa = (FRAMES.lock().alloc(pages)? as u64) << SHIFT;
    let used = IN_USE.fetch_add(pages, Ordering::Relaxed) + pages;
    PEAK.fetch_max(used, Ordering::Relaxed);
    Some(pa)
}

pub fn free_contiguous(pa: u64, pages: usize) {
    FRAMES.lock().dealloc((pa >> SHIFT) as usize, pages);
    IN_USE.fetch_sub(pages, Ordering::Relaxed);
}

pub fn free(pa: u64) {
    FRAMES.lock().dealloc((pa >> SHIFT) as usize, 1);
    IN_USE.fetch_sub(1, Ordering::Relaxed);
}

/// The 4 KiB frame at `pa`, through the linear map.
///
/// Callers must own the frame (allocated by `alloc_zeroed` and not freed):
/// frames are owned by exactly one page table or address space, whose lock
/// the caller holds.
pub fn frame_bytes(pa: u64) -> &'static mut [u8] {
    debug_assert_eq!(pa % PAGE_SIZE as u64, 0);
    // SAFETY: pa is a RAM frame handed out by this allocator, mapped by the
    // linear map; ownership (see above) rules out aliasing mutable access.
    unsafe { core::slice::from_raw_parts_mut(phys_to_virt(pa) as *mut u8, PAGE_SIZE) }
}

pub struct FrameStats {
    pub total: usize,
    pub in_use: usize,
    pub peak: usize,
}

pub fn stats() -> FrameStats {
    FrameStats {
        total: TOTAL.load(Ordering::Relaxed),
        in_use: IN_USE.load(Ordering::Relaxed),
        peak: PEAK.load(Ordering::Relaxed),
    }
}
