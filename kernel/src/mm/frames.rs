//! Page frames: the 4 KiB units of physical memory handed to programs (user
//! pages, page tables, file pages, kernel stacks) -- not to be confused with
//! arch/frames.rs, the *trap* frames that hold saved registers. A buddy
//! allocator of frame numbers, copies in and out of a frame, and counters for
//! the statistics the user sees.

use crate::memlayout::{phys_to_virt, PAGE_SIZE};
use buddy_system_allocator::FrameAllocator;
use core::sync::atomic::{AtomicUsize, Ordering};
use crate::sync::{Lock, LockClass};

static FRAMES: Lock<FrameAllocator<32>> = Lock::new(LockClass::Frames, FrameAllocator::new());
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
    zero_frame(pa, 0);
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

/// What frees frames that are only a cache (a cached share's pages):
/// registered by fs/sharecache.rs, which mm cannot import.
static RECLAIM: spin::Once<fn() -> usize> = spin::Once::new();

pub fn register_reclaim(f: fn() -> usize) {
    RECLAIM.call_once(|| f);
}

/// `alloc_zeroed` for a page of the program (a page fault): when memory
/// is exhausted, caches are emptied and the allocation tried again. The
/// caller holds no lock of a file (the cache takes them to evict).
pub fn alloc_zeroed_reclaiming() -> Option<u64> {
    alloc_zeroed().or_else(|| {
        let reclaim = RECLAIM.get()?;
        if reclaim() == 0 {
            return None;
        }
        alloc_zeroed()
    })
}

pub fn free(pa: u64) {
    FRAMES.lock().dealloc((pa >> SHIFT) as usize, 1);
    IN_USE.fetch_sub(1, Ordering::Relaxed);
}

/// The frame at `pa` through the linear map, after checking that
/// [offset, offset+len) lies inside it.
fn frame_ptr(pa: u64, offset: usize, len: usize) -> *mut u8 {
    assert!(pa.is_multiple_of(PAGE_SIZE as u64) && offset <= PAGE_SIZE && len <= PAGE_SIZE - offset);
    (phys_to_virt(pa) as usize + offset) as *mut u8
}

// Frames are reached only through the three copies below: no reference into
// a frame ever leaves this file, so a caller cannot keep one after the frame
// is freed. Callers own the frame (allocated here, not yet freed): it belongs
// to one page table, address space or file, whose lock the caller holds.

/// Copies `out.len()` bytes of the frame at `pa`, from `offset`, into `out`.
pub fn read_frame(pa: u64, offset: usize, out: &mut [u8]) {
    let src = frame_ptr(pa, offset, out.len());
    // SAFETY: src..src+len is inside a RAM frame the caller owns (above),
    // mapped by the linear map; `out` is kernel memory, so the two do not
    // overlap. User threads may write the frame meanwhile: the copy is of
    // bytes, so a racing program sees (and gets) torn data, as on Linux.
    unsafe { core::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), out.len()) }
}

/// Copies `data` into the frame at `pa`, from `offset`.
pub fn write_frame(pa: u64, offset: usize, data: &[u8]) {
    let dst = frame_ptr(pa, offset, data.len());
    // SAFETY: as in read_frame, with the roles swapped.
    unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) }
}

/// Sets the frame at `pa` to zero from `offset` to its end.
pub fn zero_frame(pa: u64, offset: usize) {
    let dst = frame_ptr(pa, offset, PAGE_SIZE - offset);
    // SAFETY: dst..the frame's end is inside a RAM frame the caller owns.
    unsafe { core::ptr::write_bytes(dst, 0, PAGE_SIZE - offset) }
}

/// The 4-byte word at `pa` (inside a frame), read atomically: a futex word
/// that user threads change concurrently (mm/uaccess.rs's FutexWord).
pub fn load_word(pa: u64) -> u32 {
    assert!(pa.is_multiple_of(4));
    let word = phys_to_virt(pa) as *const core::sync::atomic::AtomicU32;
    // SAFETY: the word is 4-byte aligned inside a RAM frame the caller owns
    // (above), mapped by the linear map; user threads access it
    // concurrently, which is what AtomicU32 is for.
    unsafe { (*word).load(Ordering::SeqCst) }
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
