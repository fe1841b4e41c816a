//! From the paths a program passes to nodes: relative paths start at the
//! working directory or at a directory descriptor (the *at calls).

use super::fd::{self, FileKind};
use super::tree::{self, Found};
use crate::mm::uaccess;
use crate::process::process;
use alloc::vec::Vec;
use gometal_core::cpio::normalize_path;
use gometal_core::errno::{EBADF, ENOENT, ENOTDIR};

pub const AT_FDCWD: i64 = -100;
const PATH_MAX: usize = 4096;

/// The working directory.
pub fn cwd() -> Vec<u8> {
    process().cwd.lock().clone()
}

/// The directory a relative path given with `dirfd` starts from.
pub fn base_dir(dirfd: u64) -> Result<Vec<u8>, isize> {
    if dirfd as i64 == AT_FDCWD {
        return Ok(cwd());
    }
    match &fd::file(dirfd)?.kind {
        FileKind::Directory { path, .. } => Ok(path.clone()),
        _ => Err(if (dirfd as i64) < 0 { EBADF } else { ENOTDIR }),
    }
}

/// The absolute, normalized form of `path` seen from directory `base`.
pub fn absolute(base: &[u8], path: &[u8]) -> Vec<u8> {
    if path.starts_with(b"/") {
        normalize_path(path)
    } else {
        normalize_path(&[base, b"/", path].concat())
    }
}

/// Reads a path argument and makes it absolute against `dirfd`. An empty
/// path is ENOENT (callers that accept AT_EMPTY_PATH check first).
pub fn user_path(dirfd: u64, ptr: u64) -> Result<Vec<u8>, isize> {
    let name = uaccess::read_cstr(ptr, PATH_MAX)?;
    if name.is_empty() {
        return Err(ENOENT);
    }
    if name.starts_with(b"/") {
        return Ok(normalize_path(&name));
    }
    Ok(absolute(&base_dir(dirfd)?, &name))
}

/// Resolves a path argument.
pub fn lookup(dirfd: u64, ptr: u64, follow: bool) -> Result<Found, isize> {
    tree::resolve(&user_path(dirfd, ptr)?, follow)
}
