//! Which `-mount` share an inode of the in-memory tree is in, and under
//! which path: for fsync of one file (fs/hostsync.rs) and statfs
//! (linux/statfs.rs). The tree keeps no parent links for files, so the
//! share is searched; that costs a walk of the share's tree, which is
//! small next to writing a file back over 9P.

use super::hostmount::{join, Mount};
use super::inode::{Inode, Kind};
use alloc::sync::Arc;
use alloc::vec::Vec;

/// The path of `node` relative to the mount (empty for the mount point
/// itself), if it is in `m`'s tree.
pub(super) fn path_in(m: &Mount, node: &Arc<Inode>) -> Option<Vec<u8>> {
    if Arc::ptr_eq(&m.dir, node) {
        return Some(Vec::new());
    }
    let mut pending: Vec<(Arc<Inode>, Vec<u8>)> = alloc::vec![(m.dir.clone(), Vec::new())];
    while let Some((dir, rel)) = pending.pop() {
        let Kind::Dir(entries) = &dir.kind else { continue };
        for (name, child) in entries.lock().iter() {
            if Arc::ptr_eq(child, node) {
                return Some(join(&rel, name));
            }
            if child.is_dir() {
                pending.push((child.clone(), join(&rel, name)));
            }
        }
    }
    None
}

/// The host file system's numbers for `node`, if it is in a share
/// (None: not in one; Some(Err) the host did not answer).
pub fn statfs_of(node: &Arc<Inode>) -> Option<Result<(gometal_core::p9::FsStat, bool), gometal_core::errno::Errno>> {
    let mut mounts = super::hostmount::MOUNTS.lock();
    let m = mounts.iter_mut().find(|m| path_in(m, node).is_some())?;
    let root = m.root_fid;
    Some(m.client.statfs(root).map(|s| (s, m.spec.read_only)))
}
