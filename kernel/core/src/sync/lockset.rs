//! A set of lock classes (the kernel's sync/lockorder.rs numbers them from
//! 0 in their order), as `W` atomic words of 64 bits, and the lock order's
//! rule over it: a CPU holding a class may only take a later one. The
//! kernel keeps one set per CPU (the classes it holds: only that CPU
//! changes it, so `acquire` needs no read-modify-write) and one for the
//! whole machine (the classes ever taken, which checked kernels print for
//! `make test`'s TestCheckedKernel). The kernel sizes `W` from its class
//! count ([`words_for`]), so a new class never runs out of bits.
//!
//! Hand-written: the crates for bit sets (bitvec, fixedbitset) are not
//! atomic, and the order check needs only "the first member at or after".

use core::sync::atomic::{AtomicU64, Ordering};

/// Words a set of `classes` classes needs (at least one).
pub const fn words_for(classes: usize) -> usize {
    if classes == 0 {
        1
    } else {
        classes.div_ceil(64)
    }
}

/// Why a class may not be taken now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// The set already holds this class: one CPU taking a lock twice
    /// spins on itself for ever.
    Twice,
    /// The set holds this later class: taking the earlier one under it
    /// inverts the order (two CPUs doing it both ways deadlock).
    Holding(usize),
}

/// A set of classes numbered below `64 * W`.
pub struct ClassSet<const W: usize> {
    words: [AtomicU64; W],
}

impl<const W: usize> ClassSet<W> {
    /// Classes this set can hold.
    pub const CAPACITY: usize = 64 * W;

    pub const fn new() -> Self {
        ClassSet { words: [const { AtomicU64::new(0) }; W] }
    }

    fn word(&self, class: usize) -> (&AtomicU64, u64) {
        (&self.words[class / 64], 1u64 << (class % 64))
    }

    pub fn contains(&self, class: usize) -> bool {
        let (word, bit) = self.word(class);
        word.load(Ordering::Relaxed) & bit != 0
    }

    /// Adds `class`, from any CPU; a class already in costs a load only,
    /// so a set every CPU adds to does not bounce its cache line.
    pub fn insert(&self, class: usize) {
        let (word, bit) = self.word(class);
        if word.load(Ordering::Relaxed) & bit == 0 {
            word.fetch_or(bit, Ordering::Relaxed);
        }
    }

    pub fn remove(&self, class: usize) {
        let (word, bit) = self.word(class);
        word.fetch_and(!bit, Ordering::Relaxed);
    }

    /// Adds `class` if the order allows taking it now: no class at or after
    /// it is in the set. For a set only one CPU changes (its held classes):
    /// a plain load and store.
    pub fn acquire(&self, class: usize) -> Result<(), Conflict> {
        match self.first_from(class) {
            Some(c) if c == class => Err(Conflict::Twice),
            Some(c) => Err(Conflict::Holding(c)),
            None => {
                let (word, bit) = self.word(class);
                word.store(word.load(Ordering::Relaxed) | bit, Ordering::Relaxed);
                Ok(())
            }
        }
    }

    /// The first class in the set numbered `from` or more.
    pub fn first_from(&self, from: usize) -> Option<usize> {
        let start = from / 64;
        for i in start..W {
            let mut bits = self.words[i].load(Ordering::Relaxed);
            if i == start {
                bits &= u64::MAX << (from % 64);
            }
            if bits != 0 {
                return Some(i * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }

    pub fn is_empty(&self) -> bool {
        self.first_from(0).is_none()
    }

    /// The classes in the set, in order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let mut next = 0;
        core::iter::from_fn(move || {
            let c = self.first_from(next)?;
            next = c + 1;
            Some(c)
        })
    }
}

impl<const W: usize> Default for ClassSet<W> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
#[path = "lockset_tests.rs"]
mod tests;
