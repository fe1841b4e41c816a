//! The per-process map of virtual memory areas: which user ranges exist and
//! with what protection. It is bookkeeping only; the kernel populates pages
//! on demand by asking `find`, and frees pages in the ranges that `unmap`
//! and `insert_fixed` report as replaced. Areas never overlap, are page
//! aligned, and neighbours with equal protection are merged so that Go's
//! many piecewise MAP_FIXED commits do not fragment the map.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::mm::pagetable::PAGE_SIZE;

const PAGE: u64 = PAGE_SIZE as u64;
/// Hints below this are ignored, like Linux's default mmap_min_addr.
const MIN_HINT: u64 = 0x10000;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prot {
    pub read: bool,
    pub write: bool,
    pub exec: bool,
}

impl Prot {
    pub const NONE: Prot = Prot {
        read: false,
        write: false,
        exec: false,
    };
    pub const RW: Prot = Prot {
        read: true,
        write: true,
        exec: false,
    };

    /// From mmap/mprotect's `prot` (PROT_READ 1, PROT_WRITE 2, PROT_EXEC 4).
    pub fn from_linux(prot: usize) -> Prot {
        Prot {
            read: prot & 1 != 0,
            write: prot & 2 != 0,
            exec: prot & 4 != 0,
        }
    }
}

/// What an area's pages hold before they are written: zeros, or a file's
/// bytes. `id` names the file (the kernel's inode number); `offset` is the
/// file offset of the area's first byte, kept right when the area is split.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backing {
    #[default]
    Anonymous,
    /// MAP_SHARED maps the file's own pages; MAP_PRIVATE copies them.
    File { id: u64, offset: u64, shared: bool },
}

impl Backing {
    /// The backing of the part of an area that starts `by` bytes later.
    fn advanced(self, by: u64) -> Backing {
        match self {
            Backing::Anonymous => Backing::Anonymous,
            Backing::File { id, offset, shared } => Backing::File { id, offset: offset + by, shared },
        }
    }

    /// A shared file mapping: its pages belong to the file, not the area.
    pub fn is_shared_file(self) -> bool {
        matches!(self, Backing::File { shared: true, .. })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vma {
    pub start: u64,
    pub end: u64,
    pub prot: Prot,
    pub backing: Backing,
}

impl Vma {
    /// The backing at `addr` inside the area (file offset of that byte).
    pub fn backing_at(&self, addr: u64) -> Backing {
        self.backing.advanced(addr - self.start)
    }
}

#[derive(Clone, Debug)]
pub struct VmaMap {
    areas: BTreeMap<u64, Vma>,
    mmap_base: u64,
    mmap_top: u64,
    /// One past the highest user address (the architecture's).
    user_end: u64,
}

/// [start, start+len) widened to whole pages; None if empty or past u64.
fn page_range(start: u64, len: u64) -> Option<(u64, u64)> {
    let end = start.checked_add(len)?.checked_add(PAGE - 1)? & !(PAGE - 1);
    let start = start & !(PAGE - 1);
    (len > 0).then_some((start, end))
}

impl VmaMap {
    /// Addresses chosen by the kernel (no usable hint) come from
    /// [mmap_base, mmap_top), highest first; a hint may go up to `user_end`.
    pub fn new(mmap_base: u64, mmap_top: u64, user_end: u64) -> VmaMap {
        VmaMap {
            areas: BTreeMap::new(),
            mmap_base,
            mmap_top,
            user_end,
        }
    }

    /// Maps [start, start+len) with `prot`, replacing whatever was there
    /// (MAP_FIXED). Returns the ranges that were mapped before and are now
    /// replaced, so the kernel can drop their pages.
    pub fn insert_fixed(&mut self, start: u64, len: u64, prot: Prot) -> Vec<(u64, u64)> {
        ranges(self.insert_backed(start, len, prot, Backing::Anonymous))
    }

    /// `insert_fixed` for an area with `backing`; returns the replaced
    /// pieces with their backings (the kernel frees only anonymous pages).
    pub fn insert_backed(&mut self, start: u64, len: u64, prot: Prot, backing: Backing) -> Vec<Vma> {
        let Some((s, e)) = page_range(start, len) else {
            return Vec::new();
        };
        let replaced = self.carve(s, e);
        self.areas.insert(
            s,
            Vma {
                start: s,
                end: e,
                prot,
                backing,
            },
        );
        self.merge_around(s, e);
        replaced
    }

    /// Where a mapping of `len` bytes would go: the hint if usable and free,
    /// else the highest free gap in [mmap_base, mmap_top) (top-down, like
    /// Linux, so the hint-less 128 MiB Go asks for lands high).
    pub fn find_free(&self, len: u64, hint: u64) -> Option<u64> {
        let (_, rounded) = page_range(0, len)?;
        if hint != 0 && hint.is_multiple_of(PAGE) && hint >= MIN_HINT {
            if let Some(end) = hint.checked_add(rounded) {
                if end <= self.user_end && self.is_free(hint, end) {
                    return Some(hint);
                }
            }
        }
        let mut top = self.mmap_top;
        for v in self.areas.range(..self.mmap_top).rev().map(|(_, v)| v) {
            if top <= self.mmap_base {
                return None;
            }
            let gap_start = v.end.max(self.mmap_base);
            if v.end < top && top - gap_start >= rounded {
                return Some(top - rounded);
            }
            top = top.min(v.start);
        }
        (top > self.mmap_base && top - self.mmap_base >= rounded).then(|| top - rounded)
    }

    /// `find_free` followed by `insert_fixed`; the start of the new area.
    pub fn map_anywhere(&mut self, len: u64, hint: u64, prot: Prot) -> Option<u64> {
        self.map_anywhere_backed(len, hint, prot, Backing::Anonymous)
    }

    pub fn map_anywhere_backed(&mut self, len: u64, hint: u64, prot: Prot, backing: Backing) -> Option<u64> {
        let start = self.find_free(len, hint)?;
        self.insert_backed(start, len, prot, backing);
        Some(start)
    }

    /// Removes [start, start+len), splitting areas that straddle its ends.
    /// Returns the ranges that were actually mapped.
    pub fn unmap(&mut self, start: u64, len: u64) -> Vec<(u64, u64)> {
        ranges(self.unmap_areas(start, len))
    }

    /// `unmap`, returning the removed pieces with their backings.
    pub fn unmap_areas(&mut self, start: u64, len: u64) -> Vec<Vma> {
        match page_range(start, len) {
            Some((s, e)) => self.carve(s, e),
            None => Vec::new(),
        }
    }

    /// Changes the protection of [start, start+len). Fails, changing nothing,
    /// if any page of the range is unmapped (mprotect's ENOMEM).
    #[allow(clippy::result_unit_err)] // the only failure is ENOMEM; no detail to carry
    pub fn protect(&mut self, start: u64, len: u64, prot: Prot) -> Result<(), ()> {
        let Some((s, e)) = page_range(start, len) else {
            return Ok(());
        };
        if !self.is_covered(s, e) {
            return Err(());
        }
        // Covered: each piece is put back with the new protection and its
        // own backing (no pages are affected here).
        for piece in self.carve(s, e) {
            self.areas.insert(piece.start, Vma { prot, ..piece });
            self.merge_around(piece.start, piece.end);
        }
        Ok(())
    }

    pub fn find(&self, addr: u64) -> Option<&Vma> {
        self.areas
            .range(..=addr)
            .next_back()
            .map(|(_, v)| v)
            .filter(|v| addr < v.end)
    }

    /// The number of areas (Linux caps it: vm.max_map_count).
    pub fn len(&self) -> usize {
        self.areas.len()
    }

    pub fn is_empty(&self) -> bool {
        self.areas.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Vma> {
        self.areas.values()
    }

    pub fn mapped_bytes(&self) -> u64 {
        self.iter().map(|v| v.end - v.start).sum()
    }

    fn is_free(&self, s: u64, e: u64) -> bool {
        self.areas
            .range(..e)
            .next_back()
            .is_none_or(|(_, v)| v.end <= s)
    }

    /// True if every byte of [s, e) belongs to some area.
    fn is_covered(&self, s: u64, e: u64) -> bool {
        let mut at = s;
        while at < e {
            match self.find(at) {
                Some(v) => at = v.end,
                None => return false,
            }
        }
        true
    }

    /// Removes [s, e) from all areas, keeping the parts outside it; returns
    /// the removed pieces in ascending order.
    fn carve(&mut self, s: u64, e: u64) -> Vec<Vma> {
        let hit: Vec<Vma> = self
            .areas
            .range(..e)
            .rev()
            .map(|(_, v)| *v)
            .take_while(|v| v.end > s)
            .collect();
        let mut removed = Vec::with_capacity(hit.len());
        for v in hit.into_iter().rev() {
            self.areas.remove(&v.start);
            if v.start < s {
                self.areas.insert(v.start, Vma { end: s, ..v });
            }
            if v.end > e {
                self.areas.insert(e, Vma { start: e, backing: v.backing_at(e), ..v });
            }
            let from = v.start.max(s);
            removed.push(Vma { start: from, end: v.end.min(e), backing: v.backing_at(from), ..v });
        }
        removed
    }

    /// Merges the area starting at `s` (ending at `e`) with neighbours that
    /// touch it and have the same protection and backing (a file area only
    /// with the piece of the same file that continues it).
    fn merge_around(&mut self, s: u64, e: u64) {
        let mut area = self.areas[&s];
        if let Some((_, prev)) = self.areas.range(..s).next_back() {
            if prev.end == s && prev.prot == area.prot && prev.backing_at(s) == area.backing {
                area.start = prev.start;
                area.backing = prev.backing;
                self.areas.remove(&s);
            }
        }
        if let Some(next) = self.areas.get(&e).copied() {
            if next.prot == area.prot && area.backing_at(e) == next.backing {
                area.end = next.end;
                self.areas.remove(&e);
            }
        }
        self.areas.insert(area.start, area);
    }
}

/// The address ranges of removed pieces.
fn ranges(pieces: Vec<Vma>) -> Vec<(u64, u64)> {
    pieces.into_iter().map(|v| (v.start, v.end)).collect()
}

#[cfg(test)]
#[path = "vma_tests.rs"]
mod tests;
