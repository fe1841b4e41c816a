//! From the paths a program passes to nodes: relative paths start at the
//! working directory or at a directory descriptor (the *at calls).

use super::fd::{self, Fd};
use super::inode::Inode;
use super::tree::{self, Found};
use crate::mm::uaccess::{UserPtr, UserSpace};
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::linux::errno::{Errno, EBADF, ENOENT, ENOTDIR};

const PATH_MAX: usize = 4096;

/// The working directory.
pub fn cwd() -> Arc<Inode> {
    super::context::current().cwd.lock().clone()
}

/// The directory a relative path given with `dirfd` starts from.
pub fn start(dirfd: Fd) -> Result<Arc<Inode>, Errno> {
    if dirfd == Fd::CWD {
        return Ok(cwd());
    }
    let file = fd::file(dirfd)?;
    file.directory().cloned().ok_or(if dirfd.0 < 0 { EBADF } else { ENOTDIR })
}

/// A path argument; an empty one is ENOENT (callers that accept
/// AT_EMPTY_PATH check first).
pub fn read(user: &mut UserSpace, ptr: UserPtr<u8>) -> Result<Vec<u8>, Errno> {
    let p = user.read_cstr(ptr, PATH_MAX)?;
    if p.is_empty() {
        return Err(ENOENT);
    }
    Ok(p)
}

/// Whether the path argument is "" (for AT_EMPTY_PATH).
pub fn is_empty(user: &mut UserSpace, ptr: UserPtr<u8>) -> bool {
    user.read_cstr(ptr, 1).is_ok_and(|p| p.is_empty())
}

/// The starting directory for `path` (the root for absolute paths, which
/// then do not depend on `dirfd` at all).
pub fn start_for(dirfd: Fd, path: &[u8]) -> Result<Arc<Inode>, Errno> {
    if path.starts_with(b"/") {
        Ok(tree::root())
    } else {
        start(dirfd)
    }
}

/// Resolves a path argument.
pub fn lookup(user: &mut UserSpace, dirfd: Fd, ptr: UserPtr<u8>, follow: bool) -> Result<Found, Errno> {
    let p = read(user, ptr)?;
    tree::walk(&start_for(dirfd, &p)?, &p, follow)
}

/// The directory, final name and trailing-slash flag of a path argument,
/// for calls that create, remove or rename names.
pub fn lookup_parent(user: &mut UserSpace, dirfd: Fd, ptr: UserPtr<u8>) -> Result<(Found, Vec<u8>, bool), Errno> {
    let p = read(user, ptr)?;
    tree::parent_of(&start_for(dirfd, &p)?, &p)
}
