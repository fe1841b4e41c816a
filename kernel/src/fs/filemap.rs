//! File-backed memory: the pages of areas mmap'ed from a file in the
//! in-memory tree (given to mm through its Pager trait, mm/pager.rs). A MAP_SHARED page *is* the file's page frame (the one
//! read and write use), so stores through the mapping are in the file at
//! once and writes to the file show in the mapping; msync, munmap and exit
//! have nothing to write back. Such frames belong to the file: unmapping
//! only removes the page-table entry. A MAP_PRIVATE page is a private copy
//! made at first touch (not copy-on-write: later writes to the file are not
//! seen by a page already touched).
//!
//! A file of a `-mount` share has its own page cache, filled from the host
//! (fs/hostfile.rs): a MAP_SHARED page is the cache's frame, written back
//! to the host on msync, munmap, fsync and exit; a MAP_PRIVATE page is a
//! copy of the file's bytes.
//!
//! A page wholly past the end of the file is SIGBUS, as on Linux (the
//! part of the last page past the end reads as zero).

use super::inode::{Inode, Kind};
use crate::mm::addrspace::Fault;
use crate::mm::frames;
use crate::mm::pager::Pager;
use crate::memlayout::PAGE_SIZE;
use alloc::sync::Arc;
use alloc::vec;

/// The frame to map at file offset `offset` (page aligned) of `node`, and
/// whether the area owns it (frees it when unmapped).
pub fn page(node: &Inode, offset: u64, shared: bool) -> Result<(u64, bool), Fault> {
    let Kind::File(data) = &node.kind else { return Err(Fault::Unmapped) };
    if node.host().is_some() {
        return host_page(node, offset, shared);
    }
    let mut d = data.lock();
    if offset >= d.size {
        return Err(Fault::BeyondEnd);
    }
    if shared {
        let pa = d.frame_for_mapping(offset / PAGE_SIZE as u64).map_err(|_| Fault::OutOfMemory)?;
        return Ok((pa, false));
    }
    let mut bytes = vec![0u8; PAGE_SIZE];
    d.read(offset, &mut bytes);
    drop(d);
    let pa = frames::alloc_zeroed_reclaiming().ok_or(Fault::OutOfMemory)?;
    frames::write_frame(pa, 0, &bytes);
    Ok((pa, true))
}

fn host_page(node: &Inode, offset: u64, shared: bool) -> Result<(u64, bool), Fault> {
    if offset >= node.size() {
        return Err(Fault::BeyondEnd);
    }
    if shared {
        let pa = super::hostfile::shared_page(node, offset / PAGE_SIZE as u64).ok_or(Fault::OutOfMemory)?;
        return Ok((pa, false));
    }
    let mut bytes = vec![0u8; PAGE_SIZE];
    super::hostfile::read_in_fault(node, offset, &mut bytes).map_err(|_| Fault::OutOfMemory)?;
    let pa = frames::alloc_zeroed_reclaiming().ok_or(Fault::OutOfMemory)?;
    frames::write_frame(pa, 0, &bytes);
    Ok((pa, true))
}

/// Marks `node` as shared-mapped: from now on its frames are never freed
/// while the file lives (see FileData::mapped_shared).
pub fn note_shared(node: &Inode) {
    if let Kind::File(data) = &node.kind {
        data.lock().mapped_shared = true;
    }
}

impl Pager for Inode {
    fn page(&self, offset: u64, shared: bool) -> Result<(u64, bool), Fault> {
        page(self, offset, shared)
    }

    fn writes_back(&self) -> bool {
        self.host().is_some()
    }

    fn write_back(&self) -> Result<(), gometal_core::linux::errno::Errno> {
        super::hostfile::writeback(self)
    }

    fn note_writable(self: Arc<Self>) {
        super::hostfile::note_mapped(&self, true);
    }
}
