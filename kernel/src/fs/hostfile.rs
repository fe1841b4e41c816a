//! The bytes of a regular file in a share: read() and write() go to the
//! host at the call (Tread/Twrite, at most a message's worth each), so when
//! write returns the host has the bytes, as with Linux's default cache=none
//! 9p mount, and a run stopped from outside loses nothing it wrote. Nothing
//! is kept in memory but the size, so a file may be bigger than memory.
//!
//! mmap is the exception: a MAP_SHARED mapping needs one frame per page
//! that every mapping of the file shares, so the file keeps a page cache,
//! filled from the host on the first fault of a page. write() updates the
//! cached pages as well as the host, and read() takes cached pages from the
//! cache (a store through a mapping may not be on the host yet). Once the
//! file was mapped shared and writable, its cached pages are written back
//! on msync, munmap, fsync, sync and exit (every cached page: there is no
//! dirty bit per page). Cached pages stay until the file is dropped, since
//! page tables may point at them; a MAP_PRIVATE page is a copy.
//!
//! A file of a share mounted `ro,cache=loose` keeps in the same page cache
//! what read() got from the host, within a bound, least recently used
//! pages evicted first (fs/sharecache.rs); once mapped shared its pages
//! are pinned as above.

use super::inode::Inode;
use super::p9client::{Client, O_RDONLY, O_RDWR};
use super::share::HostLink;
use super::sharecache;
use crate::memlayout::PAGE_SIZE;
use crate::mm::frames;
use alloc::collections::BTreeMap;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use gometal_core::linux::errno::{Errno, EACCES, EFBIG, EROFS};
use crate::sync::{Lock, LockClass};

const PAGE: u64 = PAGE_SIZE as u64;

/// A file's I/O state, under a spin lock held only between round trips
/// (HostLink::data); writes are ordered by HostLink::writing.
#[derive(Default)]
pub struct HostData {
    /// A fid opened on the host for I/O (read-write if the host allows),
    /// made at the first read or write and kept while the file lives.
    pub io_fid: Option<u32>,
    /// The size as last seen on the host or grown by a write.
    pub size: u64,
    /// The host's inode number of the file `io_fid` is open on.
    pub host_ino: u64,
    /// Page index to frame: pages of shared mappings.
    pub(super) pages: BTreeMap<u64, u64>,
    /// Set once the file is mapped shared and writable: cached pages may
    /// hold stores the host has not seen.
    pub mapped_writable: bool,
    /// Writes and truncations so far: a page read from the host while one
    /// landed may be stale (shared_page reads it again).
    writes: u64,
    /// A file of a cached share: its key in the cache's page list and a
    /// weak reference to it, through which the cache evicts its pages.
    pub(super) cache: Option<(u64, Weak<Inode>)>,
    /// Set once the file is mapped shared: its pages may sit in page
    /// tables, so none is evicted and read() adds none to the cache.
    pub(super) pinned: bool,
    /// A directory of a cached share: listed once, so its entries are all
    /// the host has (fs/sharecache.rs).
    pub listed: bool,
    /// A directory of a cached share: names the host lacks.
    pub absent: gometal_core::fs::sharecache::AbsentNames,
}

impl HostData {
    pub fn with_size(size: u64, host_ino: u64) -> HostData {
        HostData { size, host_ino, ..HostData::default() }
    }

    /// A file just created, through `io_fid` (already open).
    pub fn opened(io_fid: Option<u32>, host_ino: u64) -> HostData {
        HostData { io_fid, host_ino, ..HostData::default() }
    }

    /// Takes the host's size (an open or stat): unless pages are cached, in
    /// which case the cache's view of the file wins until written back.
    pub fn host_size(&mut self, size: u64) {
        if !self.mapped_writable {
            self.size = size;
        }
    }

    /// Makes this file's page cache part of the cached share's (a file of
    /// a `cache=loose` share): `key` names it in the page list.
    pub fn cache_as(&mut self, key: u64, node: Weak<Inode>) {
        self.cache = Some((key, node));
    }

    /// Frees the cached pages (the file is gone).
    pub fn free_pages(&mut self) {
        if let Some((key, _)) = self.cache.take() {
            sharecache::forget(key);
        }
        for (_, pa) in core::mem::take(&mut self.pages) {
            frames::free(pa);
        }
    }

    /// The file is mapped shared: its pages stay while it lives.
    fn pin(&mut self) {
        if let Some((key, _)) = &self.cache {
            if !self.pinned {
                sharecache::forget(*key);
            }
        }
        self.pinned = true;
    }

    /// The key of a cached share's file in the page list.
    pub(super) fn cache_key(&self) -> Option<u64> {
        self.cache.as_ref().map(|(k, _)| *k)
    }
}

/// The I/O fid of `h`'s file, opened on first use: read-write, or
/// read-only where the host refuses writing (a file of mode 0444, a
/// read-only share). Two threads may both open one; the first kept wins.
pub(super) fn io_fid(h: &HostLink, c: &Client) -> Result<u32, Errno> {
    if let Some(fid) = h.data.lock().io_fid {
        return Ok(fid);
    }
    let fid = c.walk(h.fid, &[])?;
    let opened = if h.share.spec.read_only { Err(EROFS) } else { c.lopen(fid, O_RDWR) };
    if let Err(e) = opened.or_else(|_| c.lopen(fid, O_RDONLY)) {
        c.clunk(fid);
        return Err(e);
    }
    let kept = *h.data.lock().io_fid.get_or_insert(fid);
    if kept != fid {
        c.clunk(fid);
    }
    Ok(kept)
}

/// What a read at `pos` finds in the page cache: bytes copied from a
/// cached page, or how far to read from the host (up to the next cached
/// page; all of `want` if none is).
pub(super) enum Cached {
    Copied(usize),
    EndOfFile,
    Host(usize),
}

pub(super) fn look_in_cache(data: &HostData, pos: u64, buf: &mut [u8]) -> Cached {
    let (index, within) = (pos / PAGE, (pos % PAGE) as usize);
    if let Some(&pa) = data.pages.get(&index) {
        if pos >= data.size {
            return Cached::EndOfFile;
        }
        let n = (PAGE as usize - within).min(buf.len()).min((data.size - pos) as usize);
        frames::read_frame(pa, within, &mut buf[..n]);
        return Cached::Copied(n);
    }
    match data.pages.range(index + 1..).next() {
        Some((&next, _)) => Cached::Host(buf.len().min((next * PAGE - pos) as usize)),
        None => Cached::Host(buf.len()),
    }
}

/// Reads file bytes at `offset` into `buf`: from cached pages where there
/// are some, from the host for the rest. Returns how many (0 at the end).
/// No lock is held across a round trip, so reads of one file from several
/// threads are in flight together.
pub fn read(node: &Inode, offset: u64, buf: &mut [u8]) -> Result<usize, Errno> {
    let Some(h) = node.host() else { return Ok(0) };
    h.share.with(|c| read_with(h, c, offset, buf))
}

/// `read` for a page fault, which holds the address-space lock: its
/// requests poll (drivers/virtio/p9.rs).
pub fn read_in_fault(node: &Inode, offset: u64, buf: &mut [u8]) -> Result<usize, Errno> {
    let Some(h) = node.host() else { return Ok(0) };
    h.share.with_polling(|c| read_with(h, c, offset, buf))
}

fn read_with(h: &HostLink, c: &Client, offset: u64, buf: &mut [u8]) -> Result<usize, Errno> {
    if h.share.cached() {
        return sharecache::read(h, c, offset, buf);
    }
    let fid = io_fid(h, c)?;
    let mut done = 0;
    while done < buf.len() {
        let pos = offset + done as u64;
        let found = look_in_cache(&h.data.lock(), pos, &mut buf[done..]);
        let n = match found {
            Cached::Copied(n) => n,
            Cached::EndOfFile => break,
            Cached::Host(want) => c.read_into(fid, pos, &mut buf[done..done + want])?,
        };
        if n == 0 {
            break;
        }
        done += n;
    }
    Ok(done)
}

/// Writes `bytes` at `offset` (the end for O_APPEND: `offset` None) on the
/// host, and into cached pages; returns where it wrote and how much.
pub fn write(node: &Inode, offset: Option<u64>, bytes: &[u8]) -> Result<(u64, usize), Errno> {
    let Some(h) = node.host() else { return Err(EACCES) };
    let _writes = h.writing.lock();
    let pos = offset.unwrap_or(h.data.lock().size);
    let end = pos.checked_add(bytes.len() as u64).filter(|&e| e <= super::inode::MAX_FILE_SIZE).ok_or(EFBIG)?;
    h.share.with(|c| {
        let fid = io_fid(h, c)?;
        c.write_all(fid, pos, bytes)
    })?;
    let mut data = h.data.lock();
    let mut at = pos;
    while at < end {
        let (index, within) = (at / PAGE, (at % PAGE) as usize);
        let n = (PAGE - within as u64).min(end - at) as usize;
        if let Some(&pa) = data.pages.get(&index) {
            let from = (at - pos) as usize;
            frames::write_frame(pa, within, &bytes[from..from + n]);
        }
        at += n as u64;
    }
    data.size = data.size.max(end);
    data.writes += 1;
    Ok((pos, bytes.len()))
}

/// Sets the size on the host; cached pages past it read as zero.
pub fn truncate(node: &Inode, len: u64) -> Result<(), Errno> {
    let Some(h) = node.host() else { return Ok(()) };
    if len > super::inode::MAX_FILE_SIZE {
        return Err(EFBIG);
    }
    let set = super::p9client::SetAttr { size: len, ..Default::default() };
    let _writes = h.writing.lock();
    // Through the open fid if there is one: it still works once the name
    // is gone (ftruncate of an unlinked file).
    let fid = h.data.lock().io_fid.unwrap_or(h.fid);
    h.share.with(|c| c.setattr(fid, gometal_core::fs::p9::SETATTR_SIZE, &set))?;
    let mut data = h.data.lock();
    for (&index, &pa) in data.pages.range(len / PAGE..) {
        let from = if index == len / PAGE { (len % PAGE) as usize } else { 0 };
        frames::zero_frame(pa, from);
    }
    data.size = len;
    data.writes += 1;
    Ok(())
}

/// The frame holding page `index` for a MAP_SHARED mapping, read from the
/// host on first use. None when memory ran out or the host failed. Called
/// by a page fault, under the address-space lock: its requests poll, and a
/// write that lands while the page is read makes it read again.
pub fn shared_page(node: &Inode, index: u64) -> Option<u64> {
    let h = node.host()?;
    let mut bytes = alloc::vec![0u8; PAGE_SIZE];
    loop {
        let writes = {
            let data = h.data.lock();
            if let Some(&pa) = data.pages.get(&index) {
                return Some(pa);
            }
            data.writes
        };
        let filled = h.share.with_polling(|c| -> Result<(), Errno> {
            let fid = io_fid(h, c)?;
            let mut done = 0;
            while done < bytes.len() {
                let n = c.read_into(fid, index * PAGE + done as u64, &mut bytes[done..])?;
                if n == 0 {
                    break;
                }
                done += n;
            }
            bytes[done..].fill(0);
            Ok(())
        });
        filled.ok()?;
        let mut data = h.data.lock();
        if data.writes != writes || data.pages.contains_key(&index) {
            continue; // changed meanwhile: look again
        }
        let pa = frames::alloc_zeroed()?;
        frames::write_frame(pa, 0, &bytes);
        data.pages.insert(index, pa);
        return Some(pa);
    }
}

/// Files mapped shared and writable, for writing back at sync and exit.
static MAPPED: Lock<Vec<Weak<Inode>>> = Lock::new(LockClass::MappedFiles, Vec::new());

/// Notes a shared mapping of `node`: its pages are pinned (writable: and
/// get written back).
pub fn note_mapped(node: &Arc<Inode>, writable: bool) {
    let Some(h) = node.host() else { return };
    let mut data = h.data.lock();
    data.pin();
    if writable && !data.mapped_writable {
        data.mapped_writable = true;
        drop(data);
        let mut mapped = MAPPED.lock();
        mapped.retain(|w| w.strong_count() > 0);
        mapped.push(Arc::downgrade(node));
    }
}

/// Writes `node`'s cached pages to the host (up to its size), if it was
/// mapped shared and writable; then asks the host to flush the file.
pub fn writeback(node: &Inode) -> Result<(), Errno> {
    writeback_with(node, false)
}

/// `writeback`; `at_exit`: the other CPUs are stopped (process::exit), so
/// this polls for its replies (no CPU may be left to take the interrupt)
/// and takes no sleep lock (a stopped thread may hold one for ever).
fn writeback_with(node: &Inode, at_exit: bool) -> Result<(), Errno> {
    let Some(h) = node.host() else { return Ok(()) };
    let _writes = (!at_exit).then(|| h.writing.lock());
    let (pages, size) = {
        let data = h.data.lock();
        if !data.mapped_writable || data.pages.is_empty() {
            return Ok(());
        }
        (data.pages.iter().map(|(&i, &pa)| (i, pa)).collect::<Vec<(u64, u64)>>(), data.size)
    };
    // The frames stay the file's while it lives (this node is alive).
    let mut page = alloc::vec![0u8; PAGE_SIZE];
    let write_pages = |c: &Client| {
        let fid = io_fid(h, c)?;
        for (index, pa) in pages {
            let start = index * PAGE;
            if start >= size {
                continue;
            }
            let n = (size - start).min(PAGE) as usize;
            frames::read_frame(pa, 0, &mut page[..n]);
            c.write_all(fid, start, &page[..n])?;
        }
        Ok(())
    };
    if at_exit {
        h.share.with_polling(write_pages)
    } else {
        h.share.with(write_pages)
    }
}

/// fsync: cached pages written back, then Tfsync.
pub fn fsync(node: &Inode) -> Result<(), Errno> {
    let Some(h) = node.host() else { return Ok(()) };
    writeback(node)?;
    if !matches!(node.kind, super::inode::Kind::File(_)) {
        return Ok(());
    }
    let _writes = h.writing.lock();
    h.share.with(|c| {
        let fid = io_fid(h, c)?;
        c.fsync(fid)
    })
}

/// Every file mapped shared and writable written back (sync; at exit,
/// `at_exit`: see writeback_with).
pub fn writeback_all(at_exit: bool) -> Result<(), Errno> {
    let nodes: Vec<Arc<Inode>> = MAPPED.lock().iter().filter_map(|w| w.upgrade()).collect();
    let mut result = Ok(());
    for node in &nodes {
        if let Err(e) = writeback_with(node, at_exit) {
            crate::println!("gometal: writing a mapped file back to the host failed: {e:?}");
            result = Err(gometal_core::linux::errno::EIO);
        }
    }
    drop(nodes); // outside MAPPED's lock and every client's
    result
}
