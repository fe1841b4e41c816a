//! The kernel heap (Box, Vec, Arc): a buddy allocator. It starts on a small
//! static block, enough to read the device tree, and grows by one large
//! block of RAM once the memory map is known.

use crate::sync::{Lock, LockClass};
use buddy_system_allocator::Heap;
use core::alloc::{GlobalAlloc, Layout};
use core::ptr::{null_mut, NonNull};

/// The buddy allocator under a lock of the checked order (class Heap, a
/// leaf: every allocation takes it, under whatever the caller holds).
struct KernelHeap(Lock<Heap<32>>);

#[global_allocator]
static HEAP: KernelHeap = KernelHeap(Lock::new(LockClass::Heap, Heap::empty()));

// SAFETY: the buddy allocator hands out each block once until it is
// deallocated with the same layout; the lock makes it one allocator for
// every CPU (as the crate's LockedHeap does with its own spin lock).
unsafe impl GlobalAlloc for KernelHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.0.lock().alloc(layout).map_or(null_mut(), |p| p.as_ptr())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if let Some(p) = NonNull::new(ptr) {
            // SAFETY: the caller passes a block this allocator handed out,
            // with its layout (GlobalAlloc's contract).
            unsafe { self.0.lock().dealloc(p, layout) };
        }
    }
}

const EARLY_SIZE: usize = 256 * 1024;

#[repr(align(4096))]
struct EarlyBlock(#[allow(dead_code)] [u8; EARLY_SIZE]); // only its memory is used

static mut EARLY: EarlyBlock = EarlyBlock([0; EARLY_SIZE]);

/// Gives the heap its static early block. Call once, first thing.
pub fn init_early() {
    // SAFETY: EARLY is used by nothing else; this runs once on the boot CPU
    // before any allocation, handing the block to the allocator for good.
    unsafe {
        let start = core::ptr::addr_of_mut!(EARLY) as usize;
        HEAP.0.lock().init(start, EARLY_SIZE);
    }
}

/// Adds the physical block [pa, pa + size) to the heap.
pub fn add(pa: u64, size: usize) {
    let va = crate::memlayout::phys_to_virt(pa) as usize;
    // SAFETY: the block is free RAM carved out of the frame allocator's ranges
    // by mm::init, mapped by the linear map, and handed over exactly once.
    unsafe { HEAP.0.lock().add_to_heap(va, va + size) }
}

/// Whether the heap has room for more kernel objects a program asks for
/// (files, directories): leaves a reserve so the kernel itself never runs
/// out, which would be a panic.
pub fn has_room() -> bool {
    let h = HEAP.0.lock();
    h.stats_total_bytes().saturating_sub(h.stats_alloc_actual()) > RESERVE
}

const RESERVE: usize = 2 << 20;

/// The heap's size in bytes (the limits on kernel objects are shares of it).
pub fn total() -> usize {
    HEAP.0.lock().stats_total_bytes()
}

/// Bytes of heap in use, for statistics.
pub fn used() -> usize {
    HEAP.0.lock().stats_alloc_actual()
}
