//! The entries of a share's directories (fs/share.rs): a cache of the
//! host directory's. Entries are added when the host is asked for a name,
//! dropped when the host no longer has it, and a removal or rename is made
//! on the host first (fs/hostops.rs), then followed here. The host decides
//! what Linux's rules leave to the file system (a directory's emptiness);
//! the rest is checked as for the in-memory tree (fs/tree.rs).

use super::inode::{Inode, Kind};
use super::tree::{attach, child};
use alloc::sync::Arc;
use gometal_core::linux::errno::*;

/// Adds a node found on the host to a shared directory's cache.
pub(super) fn cache_entry(dir: &Arc<Inode>, name: &[u8], node: Arc<Inode>) -> Result<(), Errno> {
    attach(dir, name, node)
}

/// Drops `name` from a shared directory's cache (the host no longer has
/// it, or it was removed or renamed there).
pub(super) fn forget_entry(dir: &Arc<Inode>, name: &[u8]) {
    let Kind::Dir(entries) = &dir.kind else { return };
    let Some(node) = entries.lock().remove(name) else { return };
    if node.is_dir() {
        let mut m = dir.meta.lock();
        m.nlink = m.nlink.saturating_sub(1);
        drop(m);
        *node.place.lock() = None;
    }
    drop(node); // after the entries' lock: dropping a share's node queues its fids
}

/// unlink of a share's node: the host removes it (and says whether a
/// directory is empty), then the cache forgets it.
pub(super) fn unlink(dir: &Arc<Inode>, name: &[u8], node: &Arc<Inode>, want_dir: bool) -> Result<(), Errno> {
    if node.host().is_some_and(|h| h.is_root) {
        return Err(EBUSY); // a mount point
    }
    match (node.is_dir(), want_dir) {
        (true, false) => return Err(EISDIR),
        (false, true) => return Err(ENOTDIR),
        _ => {}
    }
    super::hostops::remove(dir, name, want_dir)?;
    forget_entry(dir, name);
    let mut m = node.meta.lock();
    m.nlink = m.nlink.saturating_sub(1);
    Ok(())
}

/// rename within one share: the host renames (replacing what it had at
/// the new name), then the cache follows.
pub(super) fn rename(from: (&Arc<Inode>, &[u8]), to: (&Arc<Inode>, &[u8]), node: &Arc<Inode>, noreplace: bool) -> Result<(), Errno> {
    if node.host().is_some_and(|h| h.is_root) {
        return Err(EBUSY);
    }
    if let Some(existing) = child(to.0, to.1) {
        if Arc::ptr_eq(&existing, node) {
            return Ok(());
        }
        if noreplace {
            return Err(EEXIST);
        }
        match (node.is_dir(), existing.is_dir()) {
            (true, false) => return Err(ENOTDIR),
            (false, true) => return Err(EISDIR),
            _ => {}
        }
    }
    super::hostops::rename((from.0, from.1), (to.0, to.1))?;
    forget_entry(to.0, to.1);
    forget_entry(from.0, from.1);
    attach(to.0, to.1, node.clone())
}
