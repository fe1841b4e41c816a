//! Advisory file locks as Linux keeps them: for one file, a set of byte
//! ranges each held shared (read) or exclusive (write) by an owner. The
//! same logic serves all three kinds of lock; the kernel decides what an
//! owner is and keeps one `RangeLocks` per file and kind of table:
//!
//! - POSIX record locks (fcntl F_SETLK): the owner is the process. A
//!   process's own locks never conflict with each other; a new lock
//!   replaces, splits and merges what the same owner held in its range.
//! - OFD locks (F_OFD_SETLK): the owner is the open file description. They
//!   share the POSIX table, so the two kinds conflict with each other.
//! - flock: the owner is the open file description; one whole-file range
//!   (0..=MAX) in a table of its own, as flock and fcntl locks never
//!   interact on Linux.
//!
//! Ranges are inclusive at both ends, so "to the end of every possible
//! file" (l_len 0) is `u64::MAX` without overflow.

use alloc::vec::Vec;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    Shared,
    Exclusive,
}

/// Who holds a lock: an opaque number the kernel chooses (a process id, an
/// open file description's address), with a tag keeping the two apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Process(u64),
    OpenFile(u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lock {
    pub owner: Owner,
    pub kind: LockKind,
    pub first: u64,
    pub last: u64,
}

impl Lock {
    fn overlaps(&self, first: u64, last: u64) -> bool {
        self.first <= last && first <= self.last
    }
}

/// Too many locks on one file (ENOLCK).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyLocks;

/// The locks held on one file in one table.
#[derive(Clone, Debug, Default)]
pub struct RangeLocks {
    locks: Vec<Lock>,
}

/// The byte range a struct flock names: `start` already made absolute
/// (whence applied), `len` as given (0: to the end of any file, negative:
/// the bytes before `start`). None when the range is invalid (EINVAL).
pub fn range_of(start: i64, len: i64) -> Option<(u64, u64)> {
    if start < 0 {
        return None;
    }
    match len {
        0 => Some((start as u64, u64::MAX)),
        l if l > 0 => {
            let last = start.checked_add(l - 1)?;
            Some((start as u64, last as u64))
        }
        l => {
            let first = start.checked_add(l)?;
            if first < 0 {
                return None;
            }
            Some((first as u64, start as u64 - 1))
        }
    }
}

impl RangeLocks {
    /// At most this many locks per file: each split adds one, and a program
    /// must not be able to fill kernel memory with them.
    pub const MAX: usize = 4096;

    pub const fn new() -> Self {
        RangeLocks { locks: Vec::new() }
    }

    pub fn is_empty(&self) -> bool {
        self.locks.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Lock> {
        self.locks.iter()
    }

    /// A lock of another owner that keeps `owner` from taking `kind` on
    /// [first, last] (what F_GETLK reports), if any.
    pub fn conflict(&self, owner: Owner, kind: LockKind, first: u64, last: u64) -> Option<Lock> {
        self.locks
            .iter()
            .find(|l| {
                l.owner != owner
                    && l.overlaps(first, last)
                    && (kind == LockKind::Exclusive || l.kind == LockKind::Exclusive)
            })
            .copied()
    }

    /// Gives `owner` `kind` on [first, last]; the caller has checked there is
    /// no conflict. What the owner held there before is replaced; touching
    /// ranges of the same kind merge into one.
    pub fn set(&mut self, owner: Owner, kind: LockKind, first: u64, last: u64) -> Result<(), TooManyLocks> {
        let before = self.locks.clone();
        self.cut(owner, first, last);
        let (mut first, mut last) = (first, last);
        // Absorb the owner's same-kind neighbours that touch or overlap.
        self.locks.retain(|l| {
            let touches = l.first <= last.saturating_add(1) && first <= l.last.saturating_add(1);
            if l.owner == owner && l.kind == kind && touches {
                first = first.min(l.first);
                last = last.max(l.last);
                return false;
            }
            true
        });
        if self.locks.len() >= Self::MAX {
            self.locks = before;
            return Err(TooManyLocks);
        }
        self.locks.push(Lock { owner, kind, first, last });
        Ok(())
    }

    /// Releases what `owner` holds in [first, last] (F_UNLCK). Unlocking the
    /// middle of a lock splits it in two, so this too can hit the limit.
    pub fn unlock(&mut self, owner: Owner, first: u64, last: u64) -> Result<(), TooManyLocks> {
        let before = self.locks.clone();
        self.cut(owner, first, last);
        if self.locks.len() > Self::MAX {
            self.locks = before;
            return Err(TooManyLocks);
        }
        Ok(())
    }

    /// Removes `owner`'s hold on [first, last], splitting a lock that
    /// reaches past either end.
    fn cut(&mut self, owner: Owner, first: u64, last: u64) {
        let mut kept = Vec::with_capacity(self.locks.len() + 1);
        for l in self.locks.drain(..) {
            if l.owner != owner || !l.overlaps(first, last) {
                kept.push(l);
                continue;
            }
            if l.first < first {
                kept.push(Lock { last: first - 1, ..l });
            }
            if l.last > last {
                kept.push(Lock { first: last + 1, ..l });
            }
        }
        self.locks = kept;
    }

    /// Releases everything `owner` holds (close, exit).
    pub fn remove_owner(&mut self, owner: Owner) -> bool {
        let n = self.locks.len();
        self.locks.retain(|l| l.owner != owner);
        self.locks.len() != n
    }
}

#[cfg(test)]
#[path = "filelock_tests.rs"]
mod tests;
