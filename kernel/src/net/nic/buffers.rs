//! Where a NIC connection's smoltcp buffers live, and how many connections
//! there may be. The buffers are page frames (RAM outside the kernel heap,
//! which is at most 64 MiB and shared with every other kernel object), one
//! contiguous block per connection split into receive and send halves, and
//! given back when smoltcp's socket is removed (`remove`, the one way a
//! NIC socket leaves the set).
//!
//! Sizes: the first connections get BIG_BYTES each way, as long as all
//! such blocks together stay within 1/BIG_SHARE of RAM's page frames
//! (at -mem 256M: 32 connections; at 1G: 128): a window that covers the
//! bandwidth-delay product (smoltcp then scales its window, RFC 7323, from
//! the buffer's size) and room for 62 KiB segments handed to the device
//! for segmentation. The rest get 16 KiB each way: the pump empties
//! smoltcp's receive buffer into the program's pipe at every poll, and over
//! QEMU's user network an 8 MiB echo moved as fast with 16 KiB as with
//! 64 KiB (docs/network.md), and 16 KiB × 2 lets 10,000 connections fit in
//! 320 MiB.
//!
//! The cap: connections may take half of RAM's page frames, so `-mem 512M`
//! allows about 7,000 and `-mem 1G` 15,200 (the kernel heap, RAM/8 up to
//! 64 MiB, is the other limit: about 10,000 at 1G); past it a SYN is reset
//! and connect(2) fails with ENOBUFS.

use crate::memlayout::PAGE_SIZE;
use crate::mm::frames;
use alloc::collections::BTreeMap;
use core::sync::atomic::{AtomicUsize, Ordering};
use smoltcp::iface::{SocketHandle, SocketSet};
use smoltcp::socket::tcp;

pub const RX_BYTES: usize = 16 * 1024;
pub const TX_BYTES: usize = 16 * 1024;
const PAGES: usize = (RX_BYTES + TX_BYTES) / PAGE_SIZE;
/// Each way, for the first connections.
pub const BIG_BYTES: usize = 256 * 1024;
const BIG_PAGES: usize = 2 * BIG_BYTES / PAGE_SIZE;
/// The share of page frames connection buffers may take (1/n).
const FRAME_SHARE: usize = 2;
/// The share of page frames big buffers may take (1/n).
const BIG_SHARE: usize = 16;
/// Pages in big buffers now.
static BIG_IN_USE: AtomicUsize = AtomicUsize::new(0);

/// The most connections (opening, open, closing and listening sockets).
pub fn max_conns() -> usize {
    frames::stats().total / FRAME_SHARE / PAGES
}

/// NIC sockets with buffers, in every shard's set (the cap counts them).
static SOCKETS: AtomicUsize = AtomicUsize::new(0);

/// Each NIC socket's buffer block (physical address), by handle; one per
/// shard, as handles are per socket set.
#[derive(Default)]
pub struct Buffers {
    /// (physical address, pages) by handle.
    blocks: BTreeMap<SocketHandle, (u64, usize)>,
}

/// A block for one connection: (physical address, pages, bytes each way),
/// big while big ones have room and RAM gives one in a piece.
fn alloc_block() -> Option<(u64, usize, usize)> {
    let budget = frames::stats().total / BIG_SHARE;
    if BIG_IN_USE.fetch_add(BIG_PAGES, Ordering::Relaxed) + BIG_PAGES <= budget {
        if let Some(pa) = frames::alloc_contiguous(BIG_PAGES) {
            return Some((pa, BIG_PAGES, BIG_BYTES));
        }
    }
    BIG_IN_USE.fetch_sub(BIG_PAGES, Ordering::Relaxed);
    Some((frames::alloc_contiguous(PAGES)?, PAGES, RX_BYTES))
}

fn free_block(pa: u64, pages: usize) {
    frames::free_contiguous(pa, pages);
    if pages == BIG_PAGES {
        BIG_IN_USE.fetch_sub(BIG_PAGES, Ordering::Relaxed);
    }
}

impl Buffers {
    /// A TCP socket with frame-backed buffers and our options, added to
    /// the set; None when at the cap or out of memory (never a panic: a
    /// flood of connections is the remote's doing).
    pub fn add(&mut self, sockets: &mut SocketSet<'static>, setup: impl FnOnce(&mut tcp::Socket<'static>) -> bool) -> Option<SocketHandle> {
        if SOCKETS.load(Ordering::Relaxed) >= max_conns() {
            return None;
        }
        let (pa, pages, each) = alloc_block()?;
        let va = crate::memlayout::phys_to_virt(pa) as *mut u8;
        // SAFETY: the block is `pages` fresh frames, mapped by the linear
        // map and owned by this socket alone until `remove` frees it, after
        // smoltcp has dropped the socket (and with it these slices).
        let (rx, tx) = unsafe {
            core::ptr::write_bytes(va, 0, pages * PAGE_SIZE);
            let all = core::slice::from_raw_parts_mut(va, pages * PAGE_SIZE);
            all.split_at_mut(each)
        };
        let mut s = tcp::Socket::new(tcp::SocketBuffer::new(rx), tcp::SocketBuffer::new(tx));
        s.set_nagle_enabled(false);
        s.set_ack_delay(None);
        if !setup(&mut s) {
            drop(s);
            free_block(pa, pages);
            return None;
        }
        if !crate::mm::heap::has_room() {
            // The set's and this map's entries are heap.
            drop(s);
            free_block(pa, pages);
            return None;
        }
        let h = sockets.add(s);
        self.blocks.insert(h, (pa, pages));
        SOCKETS.fetch_add(1, Ordering::Relaxed);
        Some(h)
    }

    /// Removes a socket from the set and frees its buffers.
    pub fn remove(&mut self, sockets: &mut SocketSet<'static>, h: SocketHandle) {
        drop(sockets.remove(h));
        if let Some((pa, pages)) = self.blocks.remove(&h) {
            free_block(pa, pages);
            SOCKETS.fetch_sub(1, Ordering::Relaxed);
        }
    }
}
