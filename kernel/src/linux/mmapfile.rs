//! The file side of mmap and msync: which file an mmap names and whether
//! the descriptor allows the mapping (the pages themselves come from
//! fs/filemap.rs when touched).

use super::args::MapFlags;
use super::SysResult;
use crate::fs::fd::{self, Fd};
use crate::fs::file::Mapping;
use crate::fs::inode::Inode;
use crate::memlayout::PAGE_SIZE;
use crate::mm::pager::Pager;
use crate::mm::uaccess::UserSpace;
use alloc::sync::Arc;
use gometal_core::linux::errno::*;
use gometal_core::mm::vma::Backing;

const PROT_WRITE: u32 = 2;

/// The backing of a file mapping of `fd` at `offset`, and the file to keep
/// in the address space for it. Errors as Linux: EBADF for a bad
/// descriptor, EACCES for one not open for reading (or MAP_SHARED with
/// PROT_WRITE on one not open for writing), ENODEV for what has no pages
/// (pipes, devices, directories), EINVAL for an unaligned offset.
pub fn backing(fd: Fd, offset: u64, prot: u32, flags: MapFlags) -> Result<(Backing, Arc<Inode>), Errno> {
    let file = fd::file(fd)?;
    if !offset.is_multiple_of(PAGE_SIZE as u64) {
        return Err(EINVAL);
    }
    let node = match file.mapping() {
        Some(Mapping::Pages(node)) => node.clone(),
        _ => return Err(ENODEV),
    };
    let shared = flags.contains(MapFlags::SHARED);
    if !file.readable() || (shared && prot & PROT_WRITE != 0 && !file.writable()) {
        return Err(EACCES);
    }
    if shared {
        crate::fs::filemap::note_shared(&node);
        crate::fs::hostfile::note_mapped(&node, prot & PROT_WRITE != 0);
    }
    Ok((Backing::File { id: node.ino, offset, shared }, node))
}

const MS_ASYNC: u32 = 1;
const MS_INVALIDATE: u32 = 2;
const MS_SYNC: u32 = 4;

/// msync: a shared mapping's pages are the file's own, so for the
/// in-memory tree there is nothing to write back; a share's file gets its
/// cached pages written to the host (fs/hostfile.rs). The range must be
/// mapped (ENOMEM otherwise, as Linux).
pub fn msync(user: &mut UserSpace, addr: u64, len: u64, flags: u32) -> SysResult {
    if flags & !(MS_ASYNC | MS_INVALIDATE | MS_SYNC) != 0 || flags & MS_ASYNC != 0 && flags & MS_SYNC != 0 {
        return Err(EINVAL);
    }
    if !addr.is_multiple_of(PAGE_SIZE as u64) {
        return Err(EINVAL);
    }
    let end = addr.checked_add(len).ok_or(ENOMEM)?.next_multiple_of(PAGE_SIZE as u64);
    let mm = user.lock();
    let mut at = addr;
    while at < end {
        at = mm.vmas.find(at).ok_or(ENOMEM)?.end;
    }
    let files = shared_host_files(&mm, addr, end);
    drop(mm);
    for node in files {
        node.write_back()?;
    }
    Ok(0)
}

/// The files of a share mapped MAP_SHARED in [start, end): their pages go
/// back to the host at msync and munmap.
pub fn shared_host_files(mm: &crate::mm::addrspace::AddressSpace, start: u64, end: u64) -> alloc::vec::Vec<Arc<dyn Pager>> {
    let mut out: alloc::vec::Vec<Arc<dyn Pager>> = alloc::vec::Vec::new();
    for v in mm.vmas.iter().filter(|v| v.start < end && v.end > start) {
        if let Backing::File { id, shared: true, .. } = v.backing {
            if let Some(node) = mm.mapped_files.get(&id).filter(|n| n.writes_back()) {
                if !out.iter().any(|n| core::ptr::addr_eq(Arc::as_ptr(n), Arc::as_ptr(node))) {
                    out.push(node.clone());
                }
            }
        }
    }
    out
}
