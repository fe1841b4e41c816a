//! fallocate: make room in a file. Files in the in-memory tree are sparse
//! (a page gets a frame when written), so reserving space means only growing
//! the size; FALLOC_FL_KEEP_SIZE alone has nothing to do. Punching holes
//! and the other modes are EOPNOTSUPP, which SQLite and Go's os fall back from.

use super::SysResult;
use crate::fs::fd::{self, Fd};
use crate::mm::uaccess::UserSpace;
use gometal_core::linux::errno::*;

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
    file.allocate(offset as u64, len as u64, mode & FALLOC_FL_KEEP_SIZE != 0).map(|_| 0)
}
