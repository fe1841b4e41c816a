//! Page tables of 4 KiB pages in 512-entry tables, written against an
//! abstract physical memory (`Frames`) and an entry format (`PteFormat`,
//! one per architecture under arch/: Sv39 on riscv64, the 4 KiB-granule
//! stage-1 descriptors on aarch64), so that walking, mapping and tearing
//! down are written once and tested on the host. Sv39 and aarch64 with a
//! 39-bit address space both have 3 levels; x86-64 and Sv48 have 4, which
//! `PteFormat::LEVELS` expresses. Only 4 KiB leaves are created here; a
//! block (superpage) met on the way, such as the kernel's own mappings, is
//! respected and never split.

pub const PAGE_SIZE: usize = 4096;
const ENTRIES: usize = 512;

/// What a 4 KiB page lets the program do. A page with `user: false` keeps
/// its frame mapped (mprotect(PROT_NONE) must not lose data) while every
/// user access faults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rights {
    pub user: bool,
    pub read: bool,
    pub write: bool,
    pub exec: bool,
}

impl Rights {
    pub const NONE: Rights = Rights { user: false, read: false, write: false, exec: false };

    /// True when `self` allows an access that `other` does not: replacing
    /// `self` by `other` takes a right away, so stale TLB entries must go.
    pub fn exceeds(self, other: Rights) -> bool {
        (self.user && !other.user)
            || (self.read && !other.read)
            || (self.write && !other.write)
            || (self.exec && !other.exec)
    }
}

/// What a page maps, for the memory type its entry gives it. RAM is
/// cached and may be read speculatively, merged and reordered; a device's
/// registers must be none of these (Arm's Device-nGnRE; riscv64 without
/// Svpbmt leaves it to the platform's physical memory attributes and maps
/// both alike).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Memory {
    #[default]
    Ram,
    Device,
}

impl Memory {
    /// What the physical page at `pa` is: RAM if one of the `ram` ranges
    /// ([start, end), from the device tree's or UEFI's memory map) holds
    /// it, a device's otherwise (a PCI BAR, a platform device's registers).
    pub fn at(pa: u64, ram: &[(u64, u64)]) -> Memory {
        if ram.iter().any(|&(start, end)| (start..end).contains(&pa)) {
            Memory::Ram
        } else {
            Memory::Device
        }
    }

    /// What the range [start, end) is: `Some` when it is all RAM or all
    /// device memory, `None` when it holds both (a block of the kernel's
    /// linear map that must be split).
    pub fn of_range(start: u64, end: u64, ram: &[(u64, u64)]) -> Option<Memory> {
        let covered: u64 = ram.iter().map(|&(s, e)| e.min(end).saturating_sub(s.max(start))).sum();
        match covered {
            0 => Some(Memory::Device),
            c if c >= end - start => Some(Memory::Ram),
            _ => None,
        }
    }
}

/// An architecture's page-table entry format.
pub trait PteFormat {
    /// Levels of tables: the root is level `LEVELS - 1`, 4 KiB pages are
    /// mapped at level 0.
    const LEVELS: usize;
    /// Root entries of the user half, from index 0; the rest belong to the
    /// kernel (or, with a separate kernel root register, are unused).
    const USER_ROOT_ENTRIES: usize;
    /// An entry pointing at the next-level table at `pa`.
    fn table(pa: u64) -> u64;
    /// A level-0 entry mapping the 4 KiB page at `pa`, of memory type `memory`.
    fn page(pa: u64, rights: Rights, memory: Memory) -> u64;
    /// The memory type a valid page entry gives (`Ram` where the format
    /// has no memory types).
    fn memory(pte: u64) -> Memory;
    fn is_valid(pte: u64) -> bool;
    /// A valid entry at `level` > 0 that points to a table (not a block).
    fn is_table(pte: u64, level: usize) -> bool;
    /// The physical address the entry points at (table, block or page).
    fn address(pte: u64) -> u64;
    /// What a valid page or block entry allows.
    fn rights(pte: u64) -> Rights;
}

/// The index into the level-`level` table for `va`.
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

/// Where the level-0 entry for `va` lives, without allocating: Ok((table,
/// index)), or Err(Some((pte, level))) for a block at a higher level,
/// Err(None) if a table on the way is missing.
fn walk<P: PteFormat, F: Frames>(f: &F, root: u64, va: u64) -> Result<(u64, usize), Option<(u64, usize)>> {
    let mut table = root;
    for level in (1..P::LEVELS).rev() {
        let pte = f.read_pte(table, vpn(va, level));
        if !P::is_valid(pte) {
            return Err(None);
        }
        if !P::is_table(pte, level) {
            return Err(Some((pte, level)));
        }
        table = P::address(pte);
    }
    Ok((table, vpn(va, 0)))
}

/// The physical address of the page holding `va` and its rights.
pub fn translate<P: PteFormat, F: Frames>(f: &F, root: u64, va: u64) -> Option<(u64, Rights)> {
    match walk::<P, F>(f, root, va) {
        Ok((table, index)) => {
            // At level 0 every valid entry maps a page, even one whose
            // rights were all taken away (PROT_NONE).
            let pte = f.read_pte(table, index);
            P::is_valid(pte).then(|| (P::address(pte), P::rights(pte)))
        }
        Err(Some((pte, level))) => {
            // Inside a block: add the page-aligned offset within it.
            let span = 1u64 << (12 + 9 * level);
            let offset = va & (span - 1) & !(PAGE_SIZE as u64 - 1);
            Some((P::address(pte) + offset, P::rights(pte)))
        }
        Err(None) => None,
    }
}

/// Maps the 4 KiB page at `va` to `pa`, creating intermediate tables.
pub fn map_page<P: PteFormat, F: Frames>(
    f: &mut F,
    root: u64,
    va: u64,
    pa: u64,
    rights: Rights,
    memory: Memory,
) -> Result<(), MapError> {
    let mut table = root;
    for level in (1..P::LEVELS).rev() {
        let index = vpn(va, level);
        let pte = f.read_pte(table, index);
        table = if P::is_valid(pte) && !P::is_table(pte, level) {
            return Err(MapError::AlreadyMapped);
        } else if P::is_valid(pte) {
            P::address(pte)
        } else {
            let next = f.alloc_zeroed().ok_or(MapError::NoMemory)?;
            f.write_pte(table, index, P::table(next));
            next
        };
    }
    let index = vpn(va, 0);
    if P::is_valid(f.read_pte(table, index)) {
        return Err(MapError::AlreadyMapped);
    }
    f.write_pte(table, index, P::page(pa, rights, memory));
    Ok(())
}

/// Removes the 4 KiB mapping of `va`; returns the physical page it mapped.
/// The frame is not freed and the TLB is not flushed: both are the caller's.
pub fn unmap_page<P: PteFormat, F: Frames>(f: &mut F, root: u64, va: u64) -> Option<u64> {
    let (table, index) = walk::<P, F>(f, root, va).ok()?;
    let pte = f.read_pte(table, index);
    if !P::is_valid(pte) {
        return None;
    }
    f.write_pte(table, index, 0);
    Some(P::address(pte))
}

/// Replaces the rights of the 4 KiB mapping of `va`, keeping its memory
/// type; false if `va` is not mapped by a 4 KiB page.
pub fn set_rights<P: PteFormat, F: Frames>(f: &mut F, root: u64, va: u64, rights: Rights) -> bool {
    let Ok((table, index)) = walk::<P, F>(f, root, va) else {
        return false;
    };
    let pte = f.read_pte(table, index);
    if !P::is_valid(pte) {
        return false;
    }
    f.write_pte(table, index, P::page(P::address(pte), rights, P::memory(pte)));
    true
}

/// The start of the next naturally aligned level-`level` region after `va`.
pub fn next_region(va: u64, level: usize) -> u64 {
    let shift = 12 + 9 * level as u32;
    ((va >> shift) + 1) << shift
}

/// Whether the tables down to level `level` exist for `va` (so a scan can
/// skip a whole unpopulated region at once).
pub fn populated<P: PteFormat, F: Frames>(f: &F, root: u64, va: u64, level: usize) -> bool {
    let mut table = root;
    for l in (level..P::LEVELS).rev() {
        let pte = f.read_pte(table, vpn(va, l));
        if !P::is_valid(pte) {
            return false;
        }
        if l == level || !P::is_table(pte, l) {
            return true;
        }
        table = P::address(pte);
    }
    true
}

/// Tears down the user half (the first `USER_ROOT_ENTRIES` root entries):
/// frees every 4 KiB page mapped there and every intermediate table, and
/// clears those root entries. The root and the kernel half stay. Pages that
/// must outlive the process (a shared trampoline) have to be unmapped
/// before this.
pub fn free_user_tables<P: PteFormat, F: Frames>(f: &mut F, root: u64) {
    for i in 0..P::USER_ROOT_ENTRIES {
        let pte = f.read_pte(root, i);
        if P::is_valid(pte) && P::is_table(pte, P::LEVELS - 1) {
            free_table::<P, F>(f, P::address(pte), P::LEVELS - 2);
            f.write_pte(root, i, 0);
        }
    }
}

/// Frees the level-`level` table at `table`, what it maps and its subtables.
fn free_table<P: PteFormat, F: Frames>(f: &mut F, table: u64, level: usize) {
    for i in 0..ENTRIES {
        let pte = f.read_pte(table, i);
        if !P::is_valid(pte) {
            continue;
        }
        if level == 0 {
            f.free(P::address(pte));
        } else if P::is_table(pte, level) {
            free_table::<P, F>(f, P::address(pte), level - 1);
        }
    }
    f.free(table);
}

#[cfg(test)]
#[path = "pagetable_tests.rs"]
mod tests;
