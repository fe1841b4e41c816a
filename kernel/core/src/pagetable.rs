//! Sv39 page tables, written against an abstract physical memory (`Frames`)
//! so that walking, mapping and tearing down are tested on the host. The
//! kernel implements `Frames` over its frame allocator and the identity- or
//! offset-mapped physical memory. Only 4 KiB leaves are created here; a
//! superpage leaf met on the way (the kernel's own mappings) is respected
//! and never split.

use core::ops::BitOr;

pub const PAGE_SIZE: usize = 4096;
/// One past the highest user address: the lower half of Sv39 (root entries
/// 0..256). Root entries 256..512 hold kernel mappings shared by all tables.
pub const USER_END: u64 = 0x40_0000_0000;
const ENTRIES: usize = 512;
const USER_ROOT_ENTRIES: usize = 256;
const PPN_MASK: u64 = (1 << 44) - 1;

/// PTE permission/status bits (the low 8 bits of a PTE).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PteFlags(pub u64);

impl PteFlags {
    pub const NONE: PteFlags = PteFlags(0);
    pub const V: PteFlags = PteFlags(1 << 0);
    pub const R: PteFlags = PteFlags(1 << 1);
    pub const W: PteFlags = PteFlags(1 << 2);
    pub const X: PteFlags = PteFlags(1 << 3);
    pub const U: PteFlags = PteFlags(1 << 4);
    pub const G: PteFlags = PteFlags(1 << 5);
    pub const A: PteFlags = PteFlags(1 << 6);
    pub const D: PteFlags = PteFlags(1 << 7);

    pub const fn bits(self) -> u64 {
        self.0
    }

    pub const fn contains(self, other: PteFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for PteFlags {
    type Output = PteFlags;
    fn bitor(self, rhs: PteFlags) -> PteFlags {
        PteFlags(self.0 | rhs.0)
    }
}

/// A raw Sv39 page-table entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pte(pub u64);

impl Pte {
    pub fn new(ppn: u64, flags: PteFlags) -> Pte {
        Pte((ppn & PPN_MASK) << 10 | (flags.0 & 0xff))
    }

    pub fn is_valid(self) -> bool {
        self.0 & PteFlags::V.0 != 0
    }

    /// A valid entry with any of R/W/X maps memory; otherwise it points to
    /// the next-level table.
    pub fn is_leaf(self) -> bool {
        self.is_valid() && self.0 & (PteFlags::R.0 | PteFlags::W.0 | PteFlags::X.0) != 0
    }

    pub fn ppn(self) -> u64 {
        (self.0 >> 10) & PPN_MASK
    }

    pub fn flags(self) -> PteFlags {
        PteFlags(self.0 & 0xff)
    }

    pub fn pa(self) -> u64 {
        self.ppn() << 12
    }
}

/// The index into the level-`level` table for `va` (level 2 is the root).
pub fn vpn(va: u64, level: usize) -> usize {
    ((va >> (12 + 9 * level)) & 0x1ff) as usize
}

/// Physical memory as the page-table code sees it.
pub trait Frames {
    /// A zeroed 4 KiB frame's physical address, or None when out of memory.
    fn alloc_zeroed(&mut self) -> Option<u64>;
    fn read_pte(&self, table_pa: u64, index: usize) -> u64;
    fn write_pte(&mut self, table_pa: u64, index: usize, pte: u64);
    fn free(&mut self, pa: u64);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapError {
    NoMemory,
    AlreadyMapped,
}

/// Where the level-0 PTE for `va` lives, without allocating: Ok((table, index)),
/// or Err(Some(pte)) for a superpage leaf at a higher level, Err(None) if a
/// table on the way is missing.
fn walk<F: Frames>(f: &F, root: u64, va: u64) -> Result<(u64, usize), Option<(Pte, usize)>> {
    let mut table = root;
    for level in [2, 1] {
        let pte = Pte(f.read_pte(table, vpn(va, level)));
        if !pte.is_valid() {
            return Err(None);
        }
        if pte.is_leaf() {
            return Err(Some((pte, level)));
        }
        table = pte.pa();
    }
    Ok((table, vpn(va, 0)))
}

/// The physical address of the page holding `va` and its flags.
pub fn translate<F: Frames>(f: &F, root: u64, va: u64) -> Option<(u64, PteFlags)> {
    match walk(f, root, va) {
        Ok((table, index)) => {
            // At level 0 every valid entry maps a page, even one whose
            // R/W/X were cleared by set_flags (PROT_NONE).
            let pte = Pte(f.read_pte(table, index));
            pte.is_valid().then(|| (pte.pa(), pte.flags()))
        }
        Err(Some((pte, level))) => {
            // Inside a superpage: add the page-aligned offset within it.
            let span = 1u64 << (12 + 9 * level);
            let offset = va & (span - 1) & !(PAGE_SIZE as u64 - 1);
            Some((pte.pa() + offset, pte.flags()))
        }
        Err(None) => None,
    }
}

/// Maps the 4 KiB page at `va` to `pa`, creating intermediate tables.
/// V is added to `flags`; the caller chooses R/W/X/U/A/D.
pub fn map_page<F: Frames>(
    f: &mut F,
    root: u64,
    va: u64,
    pa: u64,
    flags: PteFlags,
) -> Result<(), MapError> {
    let mut table = root;
    for level in [2, 1] {
        let index = vpn(va, level);
        let pte = Pte(f.read_pte(table, index));
        table = if pte.is_leaf() {
            return Err(MapError::AlreadyMapped);
        } else if pte.is_valid() {
            pte.pa()
        } else {
            let next = f.alloc_zeroed().ok_or(MapError::NoMemory)?;
            // Non-leaf entries carry only V: U/A/D are reserved there.
            f.write_pte(table, index, Pte::new(next >> 12, PteFlags::V).0);
            next
        };
    }
    let index = vpn(va, 0);
    if Pte(f.read_pte(table, index)).is_valid() {
        return Err(MapError::AlreadyMapped);
    }
    f.write_pte(table, index, Pte::new(pa >> 12, flags | PteFlags::V).0);
    Ok(())
}

/// Removes the 4 KiB mapping of `va`; returns the physical page it mapped.
/// The frame is not freed and the TLB is not flushed: both are the caller's.
pub fn unmap_page<F: Frames>(f: &mut F, root: u64, va: u64) -> Option<u64> {
    let (table, index) = walk(f, root, va).ok()?;
    let pte = Pte(f.read_pte(table, index));
    if !pte.is_valid() {
        return None;
    }
    f.write_pte(table, index, 0);
    Some(pte.pa())
}

/// Replaces the flags of the 4 KiB mapping of `va` (V is kept); false if
/// `va` is not mapped by a 4 KiB leaf.
pub fn set_flags<F: Frames>(f: &mut F, root: u64, va: u64, flags: PteFlags) -> bool {
    let Ok((table, index)) = walk(f, root, va) else {
        return false;
    };
    let pte = Pte(f.read_pte(table, index));
    if !pte.is_valid() {
        return false;
    }
    f.write_pte(table, index, Pte::new(pte.ppn(), flags | PteFlags::V).0);
    true
}

/// Tears down the user half (root entries 0..256): frees every 4 KiB page
/// mapped there and every intermediate table, and clears those root
/// entries. The root and the kernel half stay. Pages that must outlive the
/// process (a shared trampoline) have to be unmapped before this.
pub fn free_user_tables<F: Frames>(f: &mut F, root: u64) {
    for i in 0..USER_ROOT_ENTRIES {
        let l1 = Pte(f.read_pte(root, i));
        if !l1.is_valid() || l1.is_leaf() {
            continue;
        }
        for j in 0..ENTRIES {
            let l0 = Pte(f.read_pte(l1.pa(), j));
            if !l0.is_valid() || l0.is_leaf() {
                continue;
            }
            for k in 0..ENTRIES {
                let leaf = Pte(f.read_pte(l0.pa(), k));
                if leaf.is_valid() {
                    f.free(leaf.pa());
                }
            }
            f.free(l0.pa());
        }
        f.free(l1.pa());
        f.write_pte(root, i, 0);
    }
}

#[cfg(test)]
#[path = "pagetable_tests.rs"]
mod tests;
