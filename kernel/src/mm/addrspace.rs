//! A program's address space: its root page table and its map of virtual
//! memory areas. Every user page is demand-zero: a mapping only records the
//! area; the first touch (a page fault, or the kernel copying to or from it)
//! allocates a zeroed frame.

use super::devmap::{DeviceArea, DeviceAreas};
use super::frames;
use super::pagetable::{self, Rights};
use crate::memlayout::{MMAP_BASE, MMAP_TOP, PAGE_SIZE, USER_END};
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::mm::vma::{Backing, Prot, Vma, VmaMap};

/// Why a user access could not be satisfied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No mapping at the address (SEGV_MAPERR).
    Unmapped,
    /// A mapping that forbids this access (SEGV_ACCERR).
    Denied,
    /// No free frame.
    OutOfMemory,
    /// A file mapping's page wholly past the end of the file (SIGBUS,
    /// BUS_ADRERR, as Linux).
    BeyondEnd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    Execute,
    /// The kernel filling in the program image: any mapped area will do.
    Populate,
}

pub struct AddressSpace {
    pub root: u64,
    pub vmas: VmaMap,
    /// Pages currently backed by frames, and the most there were (VmHWM).
    pub resident: usize,
    pub resident_peak: usize,
    /// The program break: where brk's heap starts and where it ends now.
    pub brk_start: u64,
    pub brk: u64,
    /// Frames unmapped but possibly still cached in other CPUs' TLBs.
    retired: Vec<u64>,
    /// Entries were removed or weakened since the last `take_retired`.
    pub(super) stale_tlbs: bool,
    /// Device memory mapped by UIO's mmap (devmap.rs).
    pub(super) devices: DeviceAreas,
    /// The files behind file-backed areas, by the id their Backing names
    /// (the inode number). Kept until exit, so a file's frames outlive every
    /// TLB entry that could point at them (mm/pager.rs).
    pub mapped_files: BTreeMap<u64, Arc<dyn super::pager::Pager>>,
}

/// Frames to free once every CPU has flushed its TLB for `root`
/// (`shootdown`: not done yet; false when the architecture broadcast it).
pub struct Retired {
    pub root: u64,
    pub frames: Vec<u64>,
    pub shootdown: bool,
}

const PAGE: u64 = PAGE_SIZE as u64;

fn page_down(a: u64) -> u64 {
    a & !(PAGE - 1)
}

/// What a page of an area with `prot` lets the program do. PROT_NONE keeps
/// the frame mapped (mprotect must not lose data) out of the program's
/// reach; the entry format (arch) decides the bits, e.g. that writable
/// implies readable where the hardware has no write-only pages.
pub(super) fn rights(prot: Prot) -> Rights {
    if prot == Prot::NONE {
        return Rights::NONE;
    }
    Rights { user: true, read: prot.read, write: prot.write, exec: prot.exec }
}

fn allows(prot: Prot, access: Access) -> bool {
    match access {
        Access::Read => prot.read || prot.write,
        Access::Write => prot.write,
        Access::Execute => prot.exec,
        Access::Populate => true,
    }
}

impl AddressSpace {
    pub fn new() -> Option<Self> {
        Some(AddressSpace {
            root: pagetable::new_user_root()?,
            vmas: VmaMap::new(MMAP_BASE, MMAP_TOP, USER_END),
            resident: 0,
            resident_peak: 0,
            brk_start: 0,
            brk: 0,
            retired: Vec::new(),
            stale_tlbs: false,
            devices: DeviceAreas::new(),
            mapped_files: BTreeMap::new(),
        })
    }

    /// The physical page behind `va`, faulting it in if the mapping allows
    /// `access`. This is the one place demand paging happens, for the
    /// program's own page faults and for the kernel's copies alike.
    pub fn page_for(&mut self, va: u64, access: Access) -> Result<u64, Fault> {
        if va >= USER_END {
            return Err(Fault::Unmapped);
        }
        let vma = self.vmas.find(va).ok_or(Fault::Unmapped)?;
        if !allows(vma.prot, access) {
            return Err(Fault::Denied);
        }
        let prot = vma.prot;
        let page = page_down(va);
        let backing = vma.backing_at(page);
        if let Some((pa, _)) = pagetable::translate(self.root, page) {
            return Ok(pa);
        }
        if let Some(pa) = self.devices.phys(page) {
            pagetable::map_page(self.root, page, pa, rights(prot)).map_err(|_| Fault::OutOfMemory)?;
            return Ok(pa);
        }
        let (pa, owned) = match backing {
            Backing::Anonymous => (frames::alloc_zeroed_reclaiming().ok_or(Fault::OutOfMemory)?, true),
            Backing::File { id, offset, shared } => {
                let node = self.mapped_files.get(&id).ok_or(Fault::Unmapped)?;
                node.page(offset, shared)?
            }
        };
        if pagetable::map_page(self.root, page, pa, rights(prot)).is_err() {
            if owned {
                frames::free(pa);
            }
            return Err(Fault::OutOfMemory);
        }
        self.resident += 1;
        self.resident_peak = self.resident_peak.max(self.resident);
        Ok(pa)
    }

    /// Frees the frames behind [start, end); the areas stay mapped, so the
    /// pages read back as zero on next touch (madvise DONTNEED, munmap).
    /// The frames are only retired: other CPUs may still cache translations
    /// to them until `take_retired`'s caller has shot their TLBs down.
    ///
    /// A range with no page in it changes no translation: other CPUs are
    /// not interrupted for it (a storm of munmaps of untouched memory pays
    /// no shootdowns, as on Linux).
    pub fn discard(&mut self, start: u64, end: u64) {
        // Pages of shared file areas belong to the file: only their entries go.
        let areas: Vec<Vma> = self.vmas.iter().filter(|v| v.start < end && v.end > start).copied().collect();
        let mut at = start;
        for v in areas {
            let (s, e) = (v.start.max(start), v.end.min(end));
            self.discard_pages(at, s, true);
            self.discard_pages(s, e, !v.backing.is_shared_file());
            at = e;
        }
        self.discard_pages(at, end, true);
    }

    /// Unmaps [start, end); `free`: the frames are the area's own.
    fn discard_pages(&mut self, start: u64, end: u64, free: bool) {
        if start >= end {
            return;
        }
        let mut retired = core::mem::take(&mut self.retired);
        let before = retired.len();
        let (mut kept, mut device_pages) = (0, 0);
        let devices = &self.devices;
        pagetable::unmap_range(self.root, start, end, |pa| {
            if devices.owns_phys(pa) {
                device_pages += 1; // the device's, never counted resident nor freed
            } else if free {
                retired.push(pa);
            } else {
                kept += 1;
            }
        });
        let resident_removed = retired.len() - before + kept;
        let removed = resident_removed + device_pages;
        self.resident = self.resident.saturating_sub(resident_removed);
        self.retired = retired;
        if removed > 0 && !crate::mm::tlb::flush_range(start, end, true) {
            self.stale_tlbs = true;
        }
    }

    /// A page taken out of the page table for good (mremap could not put
    /// it back): its frame is freed after the shootdown if it is the
    /// area's own (`free`), else it stays the file's.
    pub(super) fn drop_page(&mut self, pa: u64, free: bool) {
        self.resident = self.resident.saturating_sub(1);
        if free {
            self.retired.push(pa);
        }
        // The caller (mremap) flushes the range it took the page from.
    }

    /// What other CPUs must forget before the frames can be reused: call
    /// after changing mappings, then release the lock and pass the result to
    /// `tlb::shootdown_and_free`.
    pub fn take_retired(&mut self) -> Option<Retired> {
        if !self.stale_tlbs && self.retired.is_empty() {
            return None;
        }
        let shootdown = core::mem::take(&mut self.stale_tlbs);
        Some(Retired { root: self.root, frames: core::mem::take(&mut self.retired), shootdown })
    }

    /// Maps a new area. With `fixed` it replaces whatever was there (MAP_FIXED);
    /// otherwise `hint` is only a preference.
    pub fn map(&mut self, hint: u64, len: u64, prot: Prot, fixed: bool) -> Option<u64> {
        self.map_backed(hint, len, prot, fixed, Backing::Anonymous)
    }

    /// `map` for an area whose pages come from `backing`.
    pub fn map_backed(&mut self, hint: u64, len: u64, prot: Prot, fixed: bool, backing: Backing) -> Option<u64> {
        if fixed {
            let replaced = self.vmas.insert_backed(hint, len, prot, backing);
            self.discard_areas(&replaced);
            self.devices.remove(hint, hint + len);
            Some(hint)
        } else {
            self.vmas.map_anywhere_backed(len, hint, prot, backing)
        }
    }

    pub fn unmap(&mut self, start: u64, len: u64) {
        let removed = self.vmas.unmap_areas(start, len);
        self.discard_areas(&removed);
        self.devices.remove(start, start.saturating_add(len));
    }

    /// Maps device memory at physical `pa` (UIO's mmap): like `map`, and
    /// each page faults in as the device's page, never a zeroed frame.
    pub fn map_device(&mut self, hint: u64, len: u64, prot: Prot, fixed: bool, pa: u64) -> Option<u64> {
        let start = self.map(hint, len, prot, fixed)?;
        self.devices.add(DeviceArea { start, end: start + len, pa });
        Some(start)
    }

    /// Changes the protection of [start, start+len); existing pages get the
    /// new permissions in their page-table entries.
    pub fn protect(&mut self, start: u64, len: u64, prot: Prot) -> Result<(), ()> {
        self.vmas.protect(start, len, prot)?;
        let end = start + len.div_ceil(PAGE) * PAGE;
        let new = rights(prot);
        let mut weakened = false;
        let mut va = start;
        while va < end {
            if let Some((_, old)) = pagetable::translate(self.root, va) {
                weakened |= old.exceeds(new);
                pagetable::set_rights(self.root, va, new);
            }
            va += PAGE;
        }
        // Only a permission taken from a present page must leave every
        // CPU's TLB now. A stale entry with fewer rights than the page
        // table only causes a spurious fault, which the fault path answers
        // with a local flush; so untouched pages and upgrades cost no
        // shootdown (an mprotect storm that splits a mapping pays none).
        let everywhere = crate::mm::tlb::flush_range(start, end, weakened);
        if weakened && !everywhere {
            self.stale_tlbs = true;
        }
        Ok(())
    }

    /// Unmaps the pages of areas already removed from the map.
    fn discard_areas(&mut self, areas: &[Vma]) {
        for v in areas {
            self.discard_pages(v.start, v.end, !v.backing.is_shared_file());
        }
    }
}

impl Drop for AddressSpace {
    fn drop(&mut self) {
        let all: Vec<Vma> = self.vmas.iter().copied().collect();
        self.discard_areas(&all);
        for pa in self.retired.drain(..) {
            frames::free(pa);
        }
        pagetable::free_user_tables(self.root);
        frames::free(self.root);
    }
}
