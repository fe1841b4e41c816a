//! Page tables in physical memory, in the architecture's entry format
//! (arch::PageFormat). The walking logic is in `gometal_core::mm::pagetable`
//! (host-tested); this file gives it real frames.

use super::frames;
use crate::arch::PageFormat;
use crate::memlayout::{phys_to_virt, PAGE_SIZE};
pub use gometal_core::mm::pagetable::{MapError, Memory, Rights};
use alloc::vec::Vec;
use gometal_core::mm::pagetable::{self as pt, Frames, PteFormat};
use spin::Once;

/// The machine's RAM, [start, end) (the device tree's or UEFI's memory map,
/// reserved parts included): every other physical page is a device's.
static RAM: Once<Vec<(u64, u64)>> = Once::new();

/// Records what is RAM (mm::init, once), so that a page mapped later gets
/// the memory type of what it is.
pub fn set_ram(ram: Vec<(u64, u64)>) {
    RAM.call_once(|| ram);
}

/// Whether the physical page at `pa` is RAM or a device's (a UIO register
/// map); RAM until the memory map is known.
pub fn memory_at(pa: u64) -> Memory {
    RAM.get().map_or(Memory::Ram, |ram| Memory::at(pa, ram))
}

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

/// A new root table for a program: an empty user half, set up by the
/// architecture (riscv64 copies the kernel half into it).
pub fn new_user_root() -> Option<u64> {
    let root = frames::alloc_zeroed()?;
    crate::arch::init_user_root(root);
    Some(root)
}

/// The frame mapped at `va` and what the page allows.
pub fn translate(root: u64, va: u64) -> Option<(u64, Rights)> {
    pt::translate::<PageFormat, _>(&PhysFrames, root, va)
}

/// Maps the 4 KiB page at `va` to the physical page `pa`, with the memory
/// type of what `pa` is (RAM, or device registers). An executable page's
/// contents are first made visible to instruction fetch.
pub fn map_page(root: u64, va: u64, pa: u64, rights: Rights) -> Result<(), MapError> {
    let memory = memory_at(pa);
    if rights.exec && memory == Memory::Ram {
        crate::arch::sync_icache(pa);
    }
    pt::map_page::<PageFormat, _>(&mut PhysFrames, root, va, pa, rights, memory)
}

/// Changes what the page at `va` allows; false if it is not mapped.
pub fn set_rights(root: u64, va: u64, rights: Rights) -> bool {
    if rights.exec {
        if let Some((pa, old)) = translate(root, va) {
            if !old.exec && memory_at(pa) == Memory::Ram {
                crate::arch::sync_icache(pa);
            }
        }
    }
    pt::set_rights::<PageFormat, _>(&mut PhysFrames, root, va, rights)
}

/// Removes the entry for the page at `va`, returning its frame (which the
/// caller now owns: mremap moves it elsewhere).
pub fn take_page(root: u64, va: u64) -> Option<u64> {
    pt::unmap_page::<PageFormat, _>(&mut PhysFrames, root, va)
}

/// The pages mapped in [start, end), as (va, frame), skipping unpopulated
/// regions as `unmap_range` does.
pub fn mapped_pages(root: u64, start: u64, end: u64) -> alloc::vec::Vec<(u64, u64)> {
    let f = PhysFrames;
    let mut out = alloc::vec::Vec::new();
    let mut va = start;
    while va < end {
        if let Some(level) = (1..PageFormat::LEVELS).rev().find(|&l| !pt::populated::<PageFormat, _>(&f, root, va, l)) {
            va = pt::next_region(va, level);
            continue;
        }
        if let Some((pa, _)) = translate(root, va) {
            out.push((va, pa));
        }
        va += PAGE_SIZE as u64;
    }
    out
}

/// Frees every user page and table under `root` (the root itself stays).
pub fn free_user_tables(root: u64) {
    pt::free_user_tables::<PageFormat, _>(&mut PhysFrames, root)
}

/// Unmaps every page in [start, end), calling `freed(pa)` for each page that
/// was mapped. Skips unpopulated regions (a table missing at level 1 or 2)
/// without visiting their pages, so tearing down a large PROT_NONE
/// reservation is cheap.
pub fn unmap_range(root: u64, start: u64, end: u64, mut freed: impl FnMut(u64)) {
    let mut f = PhysFrames;
    let mut va = start;
    while va < end {
        if let Some(level) = (1..PageFormat::LEVELS).rev().find(|&l| !pt::populated::<PageFormat, _>(&f, root, va, l)) {
            va = pt::next_region(va, level);
            continue;
        }
        if let Some(pa) = pt::unmap_page::<PageFormat, _>(&mut f, root, va) {
            freed(pa);
        }
        va += PAGE_SIZE as u64;
    }
}
