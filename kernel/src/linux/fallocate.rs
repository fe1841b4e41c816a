//! fallocate: make room in a file. Files in the in-memory tree are sparse
//! (a page gets a frame when written), so reserving space means only growing
//! the size; FALLOC_FL_KEEP_SIZE alone has nothing to do. Punching holes
//! and the other modes are EOPNOTSUPP, which SQLite and Go's os fall back from.

use super::SysResult;
use crate::fs::fd::{self, Fd, FileKind};
use crate::fs::inode::{Kind, MAX_FILE_SIZE};
use crate::mm::uaccess::UserSpace;
use gometal_core::errno::*;

const FALLOC_FL_KEEP_SIZE: u32 = 1;

pub fn fallocate(_: &mut UserSpace, fd: Fd, mode: u32, offset: i64, len: i64) -> SysResult {
    let file = fd::file(fd)?;
    if offset < 0 || len <= 0 {
        return Err(EINVAL);
    }
    if mode & !FALLOC_FL_KEEP_SIZE != 0 {
        return Err(EOPNOTSUPP);
    }
    if !file.writable() {
        return Err(EBADF);
    }
    let node = match &file.kind {
        FileKind::File(node) => node,
        FileKind::Directory(_) => return Err(EISDIR),
        FileKind::Pipe(_) => return Err(ESPIPE),
        _ => return Err(ENODEV),
    };
    let Kind::File(data) = &node.kind else { return Err(ENODEV) };
    let end = (offset as u64).checked_add(len as u64).filter(|&e| e <= MAX_FILE_SIZE).ok_or(EFBIG)?;
    if node.host().is_some() {
        // A share's file: grown on the host (no blocks reserved).
        if mode & FALLOC_FL_KEEP_SIZE == 0 && end > node.size() {
            crate::fs::hostfile::truncate(node, end)?;
        }
        return Ok(0);
    }
    if mode & FALLOC_FL_KEEP_SIZE == 0 {
        let mut d = data.lock();
        if end > d.size {
            d.truncate(end)?;
            drop(d);
            node.touch();
        }
    }
    Ok(0)
}
