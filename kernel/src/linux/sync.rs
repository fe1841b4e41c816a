//! fsync, fdatasync, sync and syncfs. Files live in memory; a `-mount`ed
//! share is written back to the host (fs/hostsync.rs), so what a program
//! fsyncs survives the machine being stopped. fsync writes back the one
//! file (and the directories on its way, so it exists on the host under
//! its current name); on a directory, its entries. sync and syncfs write
//! back every share.

use super::SysResult;
use crate::fs::fd::{self, Fd, FileKind};
use crate::fs::hostsync;
use crate::mm::uaccess::UserSpace;
use gometal_core::errno::*;

/// fdatasync too: the whole file is written either way.
pub fn fsync(_: &mut UserSpace, fd: Fd) -> SysResult {
    match &fd::file(fd)?.kind {
        FileKind::File(node) | FileKind::Directory(node) => hostsync::sync_node(node).map(|_| 0),
        _ => Err(EINVAL),
    }
}

/// sync(2) cannot fail; a share that could not be written is reported on
/// the console (hostsync does).
pub fn sync(_: &mut UserSpace) -> SysResult {
    let _ = hostsync::sync_all();
    Ok(0)
}

/// syncfs: every share (the shares are written back together); EIO if one
/// could not be.
pub fn syncfs(_: &mut UserSpace, fd: Fd) -> SysResult {
    fd::file(fd)?;
    hostsync::sync_all().map(|_| 0)
}
