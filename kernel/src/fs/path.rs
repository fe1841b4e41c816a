//! From the paths a program passes to nodes: relative paths start at the
//! working directory or at a directory descriptor (the *at calls).

use super::fd::{self, FileKind};
use super::inode::Inode;
use super::tree::{self, Found};
use crate::mm::uaccess;
use crate::process::process;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::errno::{EBADF, ENOENT, ENOTDIR};

pub const AT_FDCWD: i64 = -100;
const PATH_MAX: usize = 4096;

/// The working directory.
pub fn cwd() -> Arc<Inode> {
    process().cwd.lock().clone()
}

/// The directory a relative path given with `dirfd` starts from.
pub fn start(dirfd: u64) -> Result<Arc<Inode>, isize> {
    if dirfd as i64 == AT_FDCWD {
        return Ok(cwd());
    }
    match &fd::file(dirfd)?.kind {
        FileKind::Directory(node) => Ok(node.clone()),
        _ => Err(if (dirfd as i64) < 0 { EBADF } else { ENOTDIR }),
    }
}

/// A path argument; an empty one is ENOENT (callers that accept
/// AT_EMPTY_PATH check first).
pub fn read(ptr: u64) -> Result<Vec<u8>, isize> {
    let p = uaccess::read_cstr(ptr, PATH_MAX)?;
    if p.is_empty() {
        return Err(ENOENT);
    }
    Ok(p)
}

/// The starting directory for `path` (the root for absolute paths, which
/// then do not depend on `dirfd` at all).
pub fn start_for(dirfd: u64, path: &[u8]) -> Result<Arc<Inode>, isize> {
    if path.starts_with(b"/") {
        Ok(tree::root())
    } else {
        start(dirfd)
    }
}

/// Resolves a path argument.
pub fn lookup(dirfd: u64, ptr: u64, follow: bool) -> Result<Found, isize> {
    let p = read(ptr)?;
    tree::walk(&start_for(dirfd, &p)?, &p, follow)
}

/// The directory, final name and trailing-slash flag of a path argument,
/// for calls that create, remove or rename names.
pub fn lookup_parent(dirfd: u64, ptr: u64) -> Result<(Found, Vec<u8>, bool), isize> {
    let p = read(ptr)?;
    tree::parent_of(&start_for(dirfd, &p)?, &p)
}
