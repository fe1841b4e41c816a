//! Where a NIC connection's smoltcp buffers live, and how many connections
//! there may be. The buffers are page frames (RAM outside the kernel heap,
//! which is at most 64 MiB and shared with every other kernel object), one
//! contiguous block per connection split into receive and send halves, and
//! given back when smoltcp's socket is removed (`remove`, the one way a
//! NIC socket leaves the set).
//!
//! smoltcp 0.14 takes a socket's buffers when the socket is made and has
//! no way to change them later (its window scale, too, is chosen from the
//! receive buffer's size at the SYN; upstream issue #927 and pull request
//! #933 ask for a buffer swap), so a connection holds its buffers for as
//! long as it lives, idle or not, and the size is chosen at the SYN by how
//! many connections there are (the sizes and counts are
//! gometal_core::net::netbuf's, with host tests):
//!
//! - the first connections get 256 KiB each way, while all such blocks
//!   together stay within 1/128 of RAM's page frames (at least 16 of them:
//!   16 connections up to -mem 2G): a window that covers the
//!   bandwidth-delay product (smoltcp then scales its window, RFC 7323) and
//!   room for 62 KiB segments handed to the device for segmentation.
//!   A bulk transfer, a few streams, gets these.
//! - while fewer than 128 are open, 16 KiB each way: over QEMU's user
//!   network an 8 MiB echo moved as fast with 16 KiB as with 64 KiB
//!   (docs/network.md); a read copies straight out of smoltcp's buffer, so
//!   the program empties it as fast as it reads.
//! - past that, 4 KiB each way, Linux's floor (tcp_rmem[0] and
//!   tcp_wmem[0], what Linux guarantees a socket under memory pressure):
//!   a server holding thousands of mostly idle connections pays 8 KiB of
//!   buffers for each (docs/benchmarks.md, "Memory per idle connection").
//!
//! The cap: small blocks may take half of RAM's page frames (`-mem 1G`
//! would allow 65,000), and the connections' kernel objects two thirds of
//! the kernel heap (heap.rs's RAM/8 up to 64 MiB: about 14,500 at 1G,
//! 3,600 at 128M); past either a SYN is reset and connect(2) fails with
//! ENOBUFS.

use crate::memlayout::PAGE_SIZE;
use crate::mm::frames;
use alloc::collections::BTreeMap;
use core::sync::atomic::{AtomicUsize, Ordering};
use gometal_core::net::netbuf::{self, BIG_PAGES};
use smoltcp::iface::{SocketHandle, SocketSet};
use smoltcp::socket::tcp;

pub use gometal_core::net::netbuf::BIG_BYTES;

/// Pages in big buffers now.
static BIG_IN_USE: AtomicUsize = AtomicUsize::new(0);

/// The most connections (opening, open, closing and listening sockets).
pub fn max_conns() -> usize {
    netbuf::max_conns(frames::stats().total, crate::mm::heap::total())
}

/// Half-open connections all sets together may hold (tcp.rs shares it
/// out; about 7,600 at -mem 1G).
pub fn half_open_budget() -> usize {
    netbuf::half_open_budget(frames::stats().total)
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
/// big while big ones have room and RAM gives one in a piece, then by how
/// many connections are open.
fn alloc_block() -> Option<(u64, usize, usize)> {
    let budget = netbuf::big_budget(frames::stats().total);
    if BIG_IN_USE.fetch_add(BIG_PAGES, Ordering::Relaxed) + BIG_PAGES <= budget {
        if let Some(pa) = frames::alloc_contiguous(BIG_PAGES) {
            return Some((pa, BIG_PAGES, BIG_BYTES));
        }
    }
    BIG_IN_USE.fetch_sub(BIG_PAGES, Ordering::Relaxed);
    let (pages, each) = netbuf::after_big(SOCKETS.load(Ordering::Relaxed));
    if let Some(pa) = frames::alloc_contiguous(pages) {
        return Some((pa, pages, each));
    }
    let (pages, each) = (netbuf::SMALL_PAGES, netbuf::SMALL_BYTES);
    Some((frames::alloc_contiguous(pages)?, pages, each))
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
