//! The cache of a share mounted `ro,cache=loose` (`gometal exec`'s module
//! share), as Linux's 9p `cache=loose`: what the host said is kept, on the
//! promise that nobody changes the directory while the program runs, so a
//! test reading its package from many threads goes to the host once per
//! file instead of at every call:
//!
//! - names: a directory's entries are not checked against the host again
//!   (share.rs, revalidate), the names the host lacks are remembered
//!   (at most MAX_ABSENT per directory, kernel/core's sharecache.rs), and
//!   a directory listed once is not read again: its entries are the host's;
//! - attributes: stat answers from the node (hostops.rs, refresh_attrs);
//! - file data: read() fills the file's page cache (hostfile.rs) a message
//!   at a time and copies from it, and opening a file asks nothing.
//!
//! Pages are bounded: a quarter of the page frames at most, never while
//! less than a quarter of memory is free, least recently used evicted
//! first (one list for every cached file, kernel/core's PageLru), and a
//! page fault that finds no free frame empties the cache and tries again
//! (`reclaim`, registered with mm/frames.rs). The list's bookkeeping is on
//! the kernel heap, bounded with it (core's `page_limit`); names only
//! while the heap has room.
//!
//! Locks: a file's page map is its host file state (class HostData); the
//! list is one lock of class SharePages, taken under a file's state, never
//! the other way: an eviction takes victims off the list, lets it go, then
//! takes each victim's file state in turn. No lock is held across a round
//! trip: readers of a page not yet cached each ask the host and the first
//! to finish keeps it.

use super::hostfile::{io_fid, look_in_cache, Cached, HostData};
use super::inode::Inode;
use super::p9client::Client;
use super::share::HostLink;
use crate::memlayout::PAGE_SIZE;
use crate::mm::{frames, heap};
use crate::sync::{Lock, LockClass};
use alloc::sync::Weak;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::linux::errno::Errno;
use gometal_core::fs::sharecache::{self as core_cache, PageLru};

const PAGE: u64 = PAGE_SIZE as u64;

/// A page leaving the cache, with a weak reference to its file.
pub type Victim = core_cache::Victim<Weak<Inode>>;

/// Every cached page of every cached share, least recently used first.
static PAGES: Lock<PageLru<Weak<Inode>>> = Lock::new(LockClass::SharePages, PageLru::new());

/// Pages read from the cache and from the host, and pages evicted (the
/// `stats` report).
static HITS: AtomicU64 = AtomicU64::new(0);
static MISSES: AtomicU64 = AtomicU64::new(0);
static EVICTED: AtomicU64 = AtomicU64::new(0);

/// A cached share is mounted: page faults may now empty the cache.
pub fn start() {
    frames::register_reclaim(reclaim);
}

/// Pages cached now (/proc/meminfo counts them as Cached).
pub fn pages() -> usize {
    PAGES.lock().len()
}

fn limit() -> usize {
    core_cache::page_limit(frames::stats().total, heap::total())
}

/// Whether one more page may be cached now (core's `may_grow`).
fn may_grow() -> bool {
    let f = frames::stats();
    heap::has_room() && core_cache::may_grow(pages(), limit(), f.total - f.in_use, f.total)
}

/// Lists pages just kept by file `key`, `(index, frame)`; returns the
/// pages beyond the bound, to `evict` once the caller's file lock is gone.
fn list(key: u64, owner: &Weak<Inode>, kept: &[(u64, u64)]) -> Vec<Victim> {
    if kept.is_empty() {
        return Vec::new();
    }
    let mut lru = PAGES.lock();
    for &(index, frame) in kept {
        lru.insert(key, index, frame, owner.clone());
    }
    lru.trim(limit())
}

/// Puts `bytes`, the file's pages from page `first` on (the last one
/// maybe partial, the rest of it zero), into the page cache of a file
/// of a cached share, as far as the cache's bound allows. Returns the
/// pages to evict, for `evict` once this lock is released.
fn keep(data: &mut HostData, first: u64, bytes: &[u8]) -> Vec<Victim> {
    let Some((key, owner)) = &data.cache else { return Vec::new() };
    if data.pinned {
        return Vec::new();
    }
    let mut kept = Vec::new();
    for (i, chunk) in bytes.chunks(PAGE_SIZE).enumerate() {
        let index = first + i as u64;
        if data.pages.contains_key(&index) {
            continue; // another reader kept it first
        }
        if !may_grow() {
            break;
        }
        let Some(pa) = frames::alloc_zeroed() else { break };
        frames::write_frame(pa, 0, chunk);
        data.pages.insert(index, pa);
        kept.push((index, pa));
    }
    list(*key, owner, &kept)
}

/// Evicts page `index` if it is still the cache's `frame` and the
/// file is not mapped; whether it was.
fn evict_page(data: &mut HostData, index: u64, frame: u64) -> bool {
    if data.pinned || data.pages.get(&index) != Some(&frame) {
        return false;
    }
    data.pages.remove(&index);
    frames::free(frame);
    true
}

/// Takes file `key`'s pages off the list (it is gone, or mapped).
pub fn forget(key: u64) {
    PAGES.lock().remove_file(key);
}

/// Frees each victim's frame, if its file still holds that frame there.
/// The caller holds no file's lock.
pub fn evict(victims: Vec<Victim>) -> usize {
    let mut freed = 0;
    for v in victims {
        let Some(node) = v.owner.upgrade() else { continue };
        if let Some(h) = node.host() {
            freed += usize::from(evict_page(&mut h.data.lock(), v.index, v.frame));
        }
        drop(node); // no lock held: the last reference may drop the file
    }
    EVICTED.fetch_add(freed as u64, Ordering::Relaxed);
    freed
}

/// Empties the cache (a page fault found no free frame); returns how many
/// frames it freed.
pub fn reclaim() -> usize {
    let victims = PAGES.lock().trim(0);
    evict(victims)
}

/// read() of a cached share's file: the bytes at `offset` from its page
/// cache, what is not there read from the host and kept. The size is the
/// one the lookup saw (the host does not change the file).
pub fn read(h: &HostLink, c: &Client, offset: u64, buf: &mut [u8]) -> Result<usize, Errno> {
    let (size, key) = {
        let d = h.data.lock();
        (d.size, d.cache_key())
    };
    let end = size.min(offset.saturating_add(buf.len() as u64));
    let mut pos = offset;
    while pos < end {
        let out = &mut buf[(pos - offset) as usize..(end - offset) as usize];
        let found = look_in_cache(&h.data.lock(), pos, out);
        let n = match found {
            Cached::Copied(n) => {
                HITS.fetch_add(1, Ordering::Relaxed);
                if let Some(key) = key {
                    PAGES.lock().touch(key, pos / PAGE);
                }
                n
            }
            Cached::EndOfFile => break,
            Cached::Host(n) => fill(h, c, pos, size, &mut out[..n])?,
        };
        if n == 0 {
            break;
        }
        pos += n as u64;
    }
    Ok((pos - offset) as usize)
}

/// Reads from the host the whole pages that hold `out` (a message's worth
/// at most), keeps them, and copies the bytes at `pos` into `out`; returns
/// how many (0: the host's file ends earlier than the size seen).
fn fill(h: &HostLink, c: &Client, pos: u64, size: u64, out: &mut [u8]) -> Result<usize, Errno> {
    let start = pos / PAGE * PAGE;
    let room = (c.io_size() as u64 / PAGE * PAGE).max(PAGE);
    let want = (pos + out.len() as u64).next_multiple_of(PAGE).min(size).min(start + room) - start;
    let mut bytes = alloc::vec![0u8; want as usize];
    let fid = io_fid(h, c)?;
    let mut got = 0;
    while got < bytes.len() {
        let n = c.read_into(fid, start + got as u64, &mut bytes[got..])?;
        if n == 0 {
            break;
        }
        got += n;
    }
    // Keep whole pages, and a last partial one only where the file ends.
    let whole = if start + got as u64 == size { got } else { got / PAGE_SIZE * PAGE_SIZE };
    MISSES.fetch_add(whole.div_ceil(PAGE_SIZE) as u64, Ordering::Relaxed);
    let victims = keep(&mut h.data.lock(), start / PAGE, &bytes[..whole]);
    evict(victims);
    let from = (pos - start) as usize;
    let n = got.saturating_sub(from).min(out.len());
    out[..n].copy_from_slice(&bytes[from..from + n]);
    Ok(n)
}

/// Whether directory `h` of a cached share is known to lack `name`: it
/// was listed (its entries are all the host has) or the host said so.
pub fn known_absent(h: &HostLink, name: &[u8]) -> bool {
    let d = h.data.lock();
    d.listed || d.absent.contains(name)
}

/// The host lacks `name` in directory `h`: remembered while the heap has
/// room.
pub fn note_absent(h: &HostLink, name: &[u8]) {
    if heap::has_room() {
        h.data.lock().absent.insert(name);
    }
}

/// Whether directory `h` of a cached share was listed already.
pub fn listed(h: &HostLink) -> bool {
    h.data.lock().listed
}

/// Directory `h` was listed and each of its names looked up.
pub fn note_listed(h: &HostLink) {
    h.data.lock().listed = true;
}

/// The cache's figures, for the `stats` report.
pub fn report() {
    let (held, limit) = (pages(), limit());
    crate::println!(
        "gometal: share page cache: {held} pages ({} KiB) held, limit {limit}; {} pages read from the cache, {} from the host, {} evicted",
        held * PAGE_SIZE / 1024,
        HITS.load(Ordering::Relaxed),
        MISSES.load(Ordering::Relaxed),
        EVICTED.load(Ordering::Relaxed)
    );
}
