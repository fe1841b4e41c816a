//! mremap: resizing a mapping in place, or moving it with its pages. A
//! moved page keeps its frame (its contents and, for a shared file page,
//! its identity): the entry is taken out of the old place and put at the
//! new one, never copied, so nothing the program wrote is lost and no frame
//! is ever mapped twice or freed while mapped. The old range's translations
//! are stale on other CPUs until the caller's shootdown (with_mm), which
//! happens before mremap returns, as Linux flushes before it returns.

use super::addrspace::{rights, AddressSpace};
use super::pagetable;
use crate::memlayout::USER_END;
use alloc::vec::Vec;
use gometal_core::mm::vma::Vma;

/// Why a remap failed (the syscall maps these to errnos).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemapError {
    /// Part of the old range is not mapped (EFAULT).
    NotMapped,
    /// Device memory (UIO) cannot move (EINVAL).
    Device,
    /// No room: in place without MAYMOVE, or nowhere (ENOMEM).
    NoRoom,
    /// The fixed destination overlaps the source (EINVAL).
    Overlap,
}

/// Where the new range goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    /// Only where it is (no MREMAP_MAYMOVE).
    InPlace,
    /// Where it is if it fits, else anywhere (MREMAP_MAYMOVE).
    MayMove,
    /// Exactly here, replacing what is there (MREMAP_FIXED).
    Fixed(u64),
}

impl AddressSpace {
    /// Resizes the mapping [old, old+old_len) to new_len bytes (both page
    /// multiples, old page aligned), moving it as `dest` allows; returns
    /// where it is now.
    pub fn remap(&mut self, old: u64, old_len: u64, new_len: u64, dest: Dest) -> Result<u64, RemapError> {
        let parts = self.covering(old, old + old_len)?;
        if self.devices.phys(old).is_some() || parts.iter().any(|v| self.devices.phys(v.start).is_some()) {
            return Err(RemapError::Device);
        }
        let last = *parts.last().expect("covering returns at least one area");
        if let Dest::Fixed(at) = dest {
            if at < old + old_len && old < at.saturating_add(new_len) {
                return Err(RemapError::Overlap);
            }
            return Ok(self.move_to(old, old_len, new_len, at, &parts, &last));
        }
        if new_len <= old_len {
            self.unmap(old + new_len, old_len - new_len);
            return Ok(old);
        }
        let grow = new_len - old_len;
        if old + new_len <= USER_END && self.vmas.find_free(grow, old + old_len) == Some(old + old_len) {
            // The tail continues the last area (merged with it by the map).
            self.vmas.insert_backed(old + old_len, grow, last.prot, last.backing_at(old + old_len));
            return Ok(old);
        }
        if dest == Dest::InPlace {
            return Err(RemapError::NoRoom);
        }
        let at = self.vmas.find_free(new_len, 0).ok_or(RemapError::NoRoom)?;
        Ok(self.move_to(old, old_len, new_len, at, &parts, &last))
    }

    /// The areas that cover [start, end) without a hole, clipped to it.
    fn covering(&self, start: u64, end: u64) -> Result<Vec<Vma>, RemapError> {
        let mut parts = Vec::new();
        let mut at = start;
        while at < end {
            let v = *self.vmas.find(at).ok_or(RemapError::NotMapped)?;
            let piece = Vma { start: at, end: v.end.min(end), prot: v.prot, backing: v.backing_at(at) };
            at = piece.end;
            parts.push(piece);
        }
        if parts.is_empty() {
            return Err(RemapError::NotMapped);
        }
        Ok(parts)
    }

    /// Moves the first min(old_len, new_len) bytes to `at` with their
    /// frames, extends the last area's kind to new_len, and unmaps the old
    /// range (and anything that was at `at`).
    fn move_to(&mut self, old: u64, old_len: u64, new_len: u64, at: u64, parts: &[Vma], last: &Vma) -> u64 {
        self.unmap(at, new_len);
        let keep = old_len.min(new_len);
        for p in parts.iter().filter(|p| p.start < old + keep) {
            let end = p.end.min(old + keep);
            self.vmas.insert_backed(at + (p.start - old), end - p.start, p.prot, p.backing);
        }
        if new_len > old_len {
            self.vmas.insert_backed(at + old_len, new_len - old_len, last.prot, last.backing_at(old + old_len));
        }
        for p in parts.iter().filter(|p| p.start < old + keep) {
            let end = p.end.min(old + keep);
            for (va, pa) in pagetable::mapped_pages(self.root, p.start, end) {
                pagetable::take_page(self.root, va);
                if pagetable::map_page(self.root, at + (va - old), pa, rights(p.prot)).is_err() {
                    // No frame for a page table: the page cannot follow.
                    // Its frame goes back (after the shootdown) rather than
                    // leak; the new place reads as zero there.
                    self.drop_page(pa, !p.backing.is_shared_file());
                }
            }
        }
        // Entries left the old range: other CPUs must forget them.
        if !crate::mm::tlb::flush_range(old, old + keep, true) {
            self.stale_tlbs = true;
        }
        // What is left of the old range (the part beyond new_len) goes.
        self.unmap(old, old_len);
        at
    }
}
