//! The requests one virtio-9p device has in flight: a 9P tag for each (the
//! protocol's way of telling concurrent requests apart: every request in
//! flight carries a different one, and its reply carries it back) and a
//! slot per tag, which holds the request's buffers while the device owns
//! them and its reply length once the device is done.
//!
//! The driver (kernel/src/drivers/virtio/p9.rs) keeps one `InFlight` under
//! its queue lock: a sender `reserve`s a tag (or waits for one), `insert`s
//! its buffers with the descriptor chain's token, sleeps; whoever sees the
//! used ring move (the interrupt handler, or a waiter's own look)
//! `complete`s the token; the sender `take`s its buffers back by its tag
//! and `release`s the tag. Slots are by tag, not token: once a chain is
//! used the queue may hand its token to the next request while the reply
//! still waits for its sender. Pure bookkeeping, host-tested
//! (p9tags_tests.rs).

use alloc::vec::Vec;

/// Tags are 0..MAX_TAGS (NOTAG, 0xffff, is never handed out).
pub const MAX_TAGS: usize = 64;

/// One chain's state.
enum Slot<B> {
    Empty,
    /// The device owns the buffers.
    Sent(B),
    /// The device is done: the buffers and how many bytes it wrote.
    Done(B, u32),
}

/// The tags in use and their requests.
pub struct InFlight<B> {
    /// Bit n set: tag n is in use.
    used: u64,
    limit: usize,
    /// By tag.
    slots: Vec<Slot<B>>,
    /// The tag of each descriptor chain the device owns, by token.
    tags: Vec<Option<u16>>,
}

impl<B> InFlight<B> {
    /// A table for at most `limit` requests at once (≤ MAX_TAGS) on a
    /// queue of `tokens` descriptors.
    pub fn new(limit: usize, tokens: usize) -> Self {
        let limit = limit.min(MAX_TAGS);
        InFlight { used: 0, limit, slots: (0..limit).map(|_| Slot::Empty).collect(), tags: alloc::vec![None; tokens] }
    }

    /// A free tag (the lowest), or None when `limit` requests are in flight.
    pub fn reserve(&mut self) -> Option<u16> {
        let tag = (!self.used).trailing_zeros() as usize;
        if tag >= self.limit {
            return None;
        }
        self.used |= 1 << tag;
        Some(tag as u16)
    }

    /// Gives `tag` back (its request's reply was taken).
    pub fn release(&mut self, tag: u16) {
        debug_assert!(self.used & (1 << tag) != 0, "9P tag {tag} released twice");
        self.used &= !(1u64 << tag);
    }

    pub fn tags_in_use(&self) -> usize {
        self.used.count_ones() as usize
    }

    /// The device now owns `bufs`, request `tag`'s, added as chain
    /// `token`. Err(bufs) (and nothing changes) for a tag not reserved or
    /// already sent, or a token out of range or in flight.
    pub fn insert(&mut self, tag: u16, token: u16, bufs: B) -> Result<(), B> {
        let reserved = self.used & (1u64 << (tag as usize % 64)) != 0;
        let (Some(slot @ Slot::Empty), Some(t @ None)) = (self.slots.get_mut(tag as usize), self.tags.get_mut(token as usize)) else {
            return Err(bufs);
        };
        if !reserved {
            return Err(bufs);
        }
        *slot = Slot::Sent(bufs);
        *t = Some(tag);
        Ok(())
    }

    /// The buffers sent as chain `token`, for popping them off the used ring.
    pub fn sent(&mut self, token: u16) -> Option<&mut B> {
        let tag = (*self.tags.get(token as usize)?)?;
        match self.slots.get_mut(tag as usize) {
            Some(Slot::Sent(b)) => Some(b),
            _ => None,
        }
    }

    /// The device is done with chain `token` and wrote `len` bytes; the
    /// token is free for the next request.
    pub fn complete(&mut self, token: u16, len: u32) -> bool {
        let Some(tag) = self.tags.get_mut(token as usize).and_then(|t| t.take()) else { return false };
        let slot = &mut self.slots[tag as usize];
        match core::mem::replace(slot, Slot::Empty) {
            Slot::Sent(b) => {
                *slot = Slot::Done(b, len);
                true
            }
            other => {
                *slot = other;
                false
            }
        }
    }

    /// The buffers and reply length of request `tag` once complete (the
    /// slot is empty again); None while the device still has it.
    pub fn take(&mut self, tag: u16) -> Option<(B, u32)> {
        let slot = self.slots.get_mut(tag as usize)?;
        if !matches!(slot, Slot::Done(..)) {
            return None;
        }
        match core::mem::replace(slot, Slot::Empty) {
            Slot::Done(b, len) => Some((b, len)),
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "p9tags_tests.rs"]
mod tests;
