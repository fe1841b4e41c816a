//! The per-process map of virtual memory areas: which user ranges exist and
//! with what protection. It is bookkeeping only; the kernel populates pages
//! on demand by asking `find`, and frees pages in the ranges that `unmap`
//! and `insert_fixed` report as replaced. Areas never overlap, are page
//! aligned, and neighbours with equal protection are merged so that Go's
//! many piecewise MAP_FIXED commits do not fragment the map.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::pagetable::{PAGE_SIZE, USER_END};

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vma {
    pub start: u64,
    pub end: u64,
    pub prot: Prot,
}

#[derive(Clone, Debug)]
pub struct VmaMap {
    areas: BTreeMap<u64, Vma>,
    mmap_base: u64,
    mmap_top: u64,
}

/// [start, start+len) widened to whole pages; None if empty or past u64.
fn page_range(start: u64, len: u64) -> Option<(u64, u64)> {
    let end = start.checked_add(len)?.checked_add(PAGE - 1)? & !(PAGE - 1);
    let start = start & !(PAGE - 1);
    (len > 0).then_some((start, end))
}

impl VmaMap {
    /// Addresses chosen by the kernel (no usable hint) come from
    /// [mmap_base, mmap_top), highest first.
    pub fn new(mmap_base: u64, mmap_top: u64) -> VmaMap {
        VmaMap {
            areas: BTreeMap::new(),
            mmap_base,
            mmap_top,
        }
    }

    /// Maps [start, start+len) with `prot`, replacing whatever was there
    /// (MAP_FIXED). Returns the ranges that were mapped before and are now
    /// replaced, so the kernel can drop their pages.
    pub fn insert_fixed(&mut self, start: u64, len: u64, prot: Prot) -> Vec<(u64, u64)> {
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
                if end <= USER_END && self.is_free(hint, end) {
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
        let start = self.find_free(len, hint)?;
        self.insert_fixed(start, len, prot);
        Some(start)
    }

    /// Removes [start, start+len), splitting areas that straddle its ends.
    /// Returns the ranges that were actually mapped.
    pub fn unmap(&mut self, start: u64, len: u64) -> Vec<(u64, u64)> {
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
        // Covered: replacing the range with one area of the new protection
        // is exactly a MAP_FIXED over it (no pages are affected here).
        self.insert_fixed(s, e - s, prot);
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
    fn carve(&mut self, s: u64, e: u64) -> Vec<(u64, u64)> {
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
                self.areas.insert(e, Vma { start: e, ..v });
            }
            removed.push((v.start.max(s), v.end.min(e)));
        }
        removed
    }

    /// Merges the area starting at `s` (ending at `e`) with neighbours that
    /// touch it and have the same protection.
    fn merge_around(&mut self, s: u64, e: u64) {
        let mut start = s;
        let mut end = e;
        let prot = self.areas[&s].prot;
        if let Some((_, prev)) = self.areas.range(..s).next_back() {
            if prev.end == s && prev.prot == prot {
                start = prev.start;
                self.areas.remove(&s);
            }
        }
        if let Some(next) = self.areas.get(&e).copied() {
            if next.prot == prot {
                end = next.end;
                self.areas.remove(&e);
            }
        }
        self.areas.insert(start, Vma { start, end, prot });
    }
}

#[cfg(test)]
#[path = "vma_tests.rs"]
mod tests;
