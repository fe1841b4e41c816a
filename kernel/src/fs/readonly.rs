//! Read-only mounts (`-mount HOST:GUEST:ro`): which inodes belong to one,
//! so that every call that would change them fails with EROFS as on Linux
//! (open for writing or truncating, O_CREAT, mkdir, mknod, unlink, rmdir,
//! rename, link, symlink, chmod, chown, utimensat, truncate). The set is
//! filled once, right after the share is copied in at boot; nothing can be
//! added under a read-only mount afterwards, so it never changes. Moving a
//! name between a read-only mount and anything else is EXDEV, as Linux
//! answers any rename or link across mounts.

use super::inode::{Inode, Kind};
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, Ordering};
use gometal_core::errno::{Errno, EROFS, EXDEV};
use spin::Mutex;

/// Inode number to the read-only mount (its index) it is in.
static NODES: Mutex<BTreeMap<u64, usize>> = Mutex::new(BTreeMap::new());
/// Whether there is any read-only mount: the common case costs no lock.
static ANY: AtomicBool = AtomicBool::new(false);

/// Marks `dir` and everything under it as read-only mount `mount`.
pub fn mark_tree(dir: &Arc<Inode>, mount: usize) {
    let mut nodes = NODES.lock();
    let mut pending: Vec<Arc<Inode>> = alloc::vec![dir.clone()];
    while let Some(node) = pending.pop() {
        nodes.insert(node.ino, mount);
        if let Kind::Dir(entries) = &node.kind {
            pending.extend(entries.lock().values().cloned());
        }
    }
    ANY.store(true, Ordering::Release);
}

/// The read-only mount `node` is in, if any.
fn mount_of(node: &Inode) -> Option<usize> {
    if !ANY.load(Ordering::Acquire) {
        return None;
    }
    NODES.lock().get(&node.ino).copied()
}

pub fn is_read_only(node: &Inode) -> bool {
    mount_of(node).is_some()
}

/// EROFS if `node` (a file to change, or a directory to change entries
/// of) is on a read-only mount.
pub fn check(node: &Inode) -> Result<(), Errno> {
    if is_read_only(node) { Err(EROFS) } else { Ok(()) }
}

/// For a rename or link from directory `from` to directory `to`: EXDEV if
/// they are on different mounts and one is read-only, EROFS if both are on
/// the same read-only mount.
pub fn check_move(from: &Inode, to: &Inode) -> Result<(), Errno> {
    match (mount_of(from), mount_of(to)) {
        (None, None) => Ok(()),
        (Some(a), Some(b)) if a == b => Err(EROFS),
        _ => Err(EXDEV),
    }
}
