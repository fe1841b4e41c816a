//! Sv39 page tables in physical memory. The walking logic is in
//! `gometal_core::pagetable` (host-tested); this file gives it real frames.

use super::frames;
use crate::memlayout::{phys_to_virt, PAGE_SIZE};
use gometal_core::pagetable::{self as pt, Frames};

/// Real frames, reached through the linear map.
pub struct PhysFrames;

fn pte_ptr(table_pa: u64, index: usize) -> *mut u64 {
    assert!(index < 512);
    (phys_to_virt(table_pa) + 8 * index as u64) as *mut u64
}

impl Frames for PhysFrames {
    fn alloc_zeroed(&mut self) -> Option<u64> {
        frames::alloc_zeroed()
    }
    fn read_pte(&self, table_pa: u64, index: usize) -> u64 {
        // SAFETY: table_pa is a page-table frame owned by the address space
        // whose lock the caller holds; index < 512 keeps it inside the frame.
        unsafe { core::ptr::read_volatile(pte_ptr(table_pa, index)) }
    }
    fn write_pte(&mut self, table_pa: u64, index: usize, pte: u64) {
        // SAFETY: as in read_pte; the hardware walker may read concurrently,
        // which a volatile aligned 64-bit store makes safe.
        unsafe { core::ptr::write_volatile(pte_ptr(table_pa, index), pte) }
    }
    fn free(&mut self, pa: u64) {
        frames::free(pa)
    }
}

/// The physical address of the kernel's own root table.
pub fn kernel_root() -> u64 {
    crate::arch::boot_page_table()
}

/// A new root table for a program: empty user half, the kernel half copied
/// from the kernel root (the same gigapage entries in every address space).
pub fn new_user_root() -> Option<u64> {
    let root = frames::alloc_zeroed()?;
    let kernel = kernel_root();
    let mut f = PhysFrames;
    for i in 256..512 {
        let e = f.read_pte(kernel, i);
        f.write_pte(root, i, e);
    }
    Some(root)
}

/// Unmaps every page in [start, end), calling `freed(pa)` for each page that
/// was mapped. Skips unpopulated 1 GiB and 2 MiB regions without visiting
/// their pages, so tearing down a large PROT_NONE reservation is cheap.
pub fn unmap_range(root: u64, start: u64, end: u64, mut freed: impl FnMut(u64)) {
    let mut f = PhysFrames;
    let mut va = start;
    while va < end {
        let l2 = pt::Pte(f.read_pte(root, pt::vpn(va, 2)));
        if !l2.is_valid() {
            va = next_boundary(va, 30);
            continue;
        }
        let l1 = pt::Pte(f.read_pte(l2.pa(), pt::vpn(va, 1)));
        if !l1.is_valid() {
            va = next_boundary(va, 21);
            continue;
        }
        if let Some(pa) = pt::unmap_page(&mut f, root, va) {
            freed(pa);
        }
        va += PAGE_SIZE as u64;
    }
}

fn next_boundary(va: u64, shift: u32) -> u64 {
    ((va >> shift) + 1) << shift
}
