//! Memory management: physical frames, the kernel heap, page tables and the
//! program's address space.

#[deny(unsafe_code)]
pub mod addrspace;
#[deny(unsafe_code)]
pub mod asid;
#[deny(unsafe_code)]
pub mod devmap;
pub mod frames;
#[deny(unsafe_code)]
pub mod pager;
pub mod heap;
pub mod pagetable;
#[deny(unsafe_code)]
pub mod remap;
pub mod strayaccess;
#[deny(unsafe_code)]
pub mod tlb;
#[deny(unsafe_code)]
pub mod uaccess;

use crate::boot::machine::{Machine, Range};
use alloc::vec::Vec;

/// Subtracts `hole` from every range in `ranges`.
fn carve(ranges: Vec<Range>, hole: Range) -> Vec<Range> {
    let mut out = Vec::new();
    for r in ranges {
        if hole.end <= r.start || hole.start >= r.end {
            out.push(r);
            continue;
        }
        if hole.start > r.start {
            out.push(Range { start: r.start, end: hole.start });
        }
        if hole.end < r.end {
            out.push(Range { start: hole.end, end: r.end });
        }
    }
    out
}

/// Sets up the heap and the frame allocator from the RAM the device tree
/// lists, minus what the firmware reserves, the kernel's image (`image`:
/// the program it carries included), the initrd and the device tree itself.
/// Fails, saying how much there is, when no free range holds the heap: a
/// machine given too little memory (QEMU `-m 13M`) stops with that line.
pub fn init(machine: &Machine, image: Range) -> Result<(), TooLittleMemory> {
    let page = crate::memlayout::PAGE_SIZE as u64;
    let ram: Vec<(u64, u64)> = machine.memory.iter().map(|r| (r.start, r.end)).collect();
    // The kernel's own map first (its blocks of RAM become Normal memory,
    // of devices Device memory), while nothing but this CPU runs.
    crate::arch::set_linear_map_memory(&ram);
    pagetable::set_ram(ram);
    let mut free: Vec<Range> = machine.memory.clone();
    for &r in &machine.reserved {
        free = carve(free, r);
    }
    free = carve(free, image);
    if let Some(initrd) = machine.initrd {
        free = carve(free, initrd);
    }
    free = carve(free, machine.fdt);
    let mut ranges: Vec<Range> = free
        .into_iter()
        .map(|r| Range { start: r.start.div_ceil(page) * page, end: r.end / page * page })
        .filter(|r| r.end > r.start)
        .collect();
    let total: u64 = ranges.iter().map(|r| r.end - r.start).sum();
    // The kernel heap: an eighth of free memory, between 4 MiB and the limit.
    let heap_size = (total / 8).clamp(4 << 20, crate::param::MAX_KERNEL_HEAP as u64) / page * page;
    let largest = ranges.iter().map(|r| r.end - r.start).max().unwrap_or(0);
    let first = ranges.iter_mut().find(|r| r.end - r.start >= heap_size).ok_or(TooLittleMemory { free: total, largest, heap: heap_size })?;
    heap::add(first.start, heap_size as usize);
    first.start += heap_size;
    for r in &ranges {
        frames::add_range(r.start, r.end);
    }
    Ok(())
}

/// No free range of RAM holds the kernel heap.
pub struct TooLittleMemory {
    free: u64,
    largest: u64,
    heap: u64,
}

impl core::fmt::Display for TooLittleMemory {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        write!(
            f,
            "too little memory: {} KiB free after the kernel, the program and the firmware's ranges, the largest range {} KiB; the kernel heap alone needs {} KiB in one range",
            self.free >> 10,
            self.largest >> 10,
            self.heap >> 10
        )
    }
}

/// The machine's memory as /proc/meminfo and sysinfo(2) show it, in bytes:
/// (total, free). Both the page frames and the kernel heap count, so that
/// what kernel objects take (sockets, their bookkeeping, files) shows as
/// used, as Linux's slab does; the heap's free part is its unallocated
/// bytes (the buddy allocator's rounding counts as used).
pub fn usage() -> (u64, u64) {
    let f = frames::stats();
    let page = crate::memlayout::PAGE_SIZE as u64;
    let heap_total = heap::total() as u64;
    let heap_free = heap_total.saturating_sub(heap::used() as u64);
    ((f.total as u64) * page + heap_total, ((f.total - f.in_use) as u64) * page + heap_free)
}
