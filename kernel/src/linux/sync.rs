//! fsync, fdatasync, sync and syncfs. Files of the in-memory tree have
//! nowhere to go. A `-mount` share's files are written to the host at each
//! write (fs/hostfile.rs), so fsync writes back what shared mappings of
//! the file changed and asks the host to flush it (Tfsync); sync and
//! syncfs write back every file mapped shared and writable.

use super::SysResult;
use crate::fs::fd::{self, Fd};
use crate::fs::share;
use crate::mm::uaccess::UserSpace;

/// fdatasync too: the whole file is written either way.
pub fn fsync(_: &mut UserSpace, fd: Fd) -> SysResult {
    fd::file(fd)?.fsync().map(|_| 0)
}

/// sync(2) cannot fail; a share that could not be written is reported on
/// the console.
pub fn sync(_: &mut UserSpace) -> SysResult {
    let _ = share::sync_all();
    Ok(0)
}

/// syncfs: as sync, for every share (not only the descriptor's); EIO if a
/// mapped file could not be written back.
pub fn syncfs(_: &mut UserSpace, fd: Fd) -> SysResult {
    fd::file(fd)?;
    share::sync_all().map(|_| 0)
}
