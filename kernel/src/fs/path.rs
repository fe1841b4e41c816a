//! Turning the paths a program passes into nodes: relative to the working
//! directory or a directory fd, with symlinks inside the initramfs followed.

use super::initramfs::{self, Node};
use crate::process::process;
use alloc::vec::Vec;
use gometal_core::cpio::normalize_path;
use gometal_core::errno::{ELOOP, ENOENT, ENOTDIR};

const MAX_SYMLINKS: usize = 8;

/// The absolute, normalized form of `path` seen from directory `base`.
pub fn absolute(base: &[u8], path: &[u8]) -> Vec<u8> {
    if path.starts_with(b"/") {
        normalize_path(path)
    } else {
        normalize_path(&[base, b"/", path].concat())
    }
}

/// The working directory.
pub fn cwd() -> Vec<u8> {
    process().cwd.lock().clone()
}

/// Resolves `path` (absolute or relative to `base`) to a node, following
/// symlinks in the last component if `follow`, and in every parent.
pub fn resolve(base: &[u8], path: &[u8], follow: bool) -> Result<(Vec<u8>, &'static Node), isize> {
    let mut abs = absolute(base, path);
    for _ in 0..MAX_SYMLINKS {
        check_parents(&abs)?;
        let node = initramfs::lookup(&abs).ok_or(ENOENT)?;
        if !(follow && node.is_symlink()) {
            return Ok((abs, node));
        }
        let dir = initramfs::parent_of(&abs);
        abs = absolute(&dir, node.data);
    }
    Err(ELOOP)
}

/// Every parent of `abs` must be a directory.
fn check_parents(abs: &[u8]) -> Result<(), isize> {
    let mut parent = initramfs::parent_of(abs);
    while parent.len() > 1 {
        match initramfs::lookup(&parent) {
            Some(n) if n.is_dir() => {}
            Some(_) => return Err(ENOTDIR),
            None => return Err(ENOENT),
        }
        parent = initramfs::parent_of(&parent);
    }
    Ok(())
}
