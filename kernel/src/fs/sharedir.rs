//! The entries of a share's directories (fs/share.rs): a cache of the
//! host directory's. Entries are added when the host is asked for a name
//! (lookup), checked against the host at each use (revalidate) and dropped
//! when the host no longer has it, brought up to date before a listing
//! (refresh); a removal or rename is made on the host first
//! (fs/hostops.rs), then followed here. The host decides what Linux's
//! rules leave to the file system (a directory's emptiness); the rest is
//! checked as for the in-memory tree (fs/tree.rs). In a share mounted
//! `cache=loose` nothing is checked again, names the host lacks are
//! remembered and a directory is listed once (fs/sharecache.rs).

use super::inode::{Inode, Kind};
use super::p9client as c;
use super::share;
use super::tree::{attach, child};
use alloc::collections::BTreeSet;
use alloc::sync::Arc;
use alloc::vec::Vec;
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

/// Looks `name` up on the host under the shared directory `dir` (a name
/// its cache lacks): the new node, already in `dir`'s entries.
pub fn lookup(dir: &Arc<Inode>, name: &[u8]) -> Option<Arc<Inode>> {
    lookup_host(dir, name).ok().flatten()
}

/// `lookup`, telling a name the host lacks (or gometal does not show:
/// Ok(None)) from a host that failed (Err). In a cached share a missing
/// name is remembered, and not asked for again.
fn lookup_host(dir: &Arc<Inode>, name: &[u8]) -> Result<Option<Arc<Inode>>, Errno> {
    let Some(h) = dir.host() else { return Ok(None) };
    if name == b"." || name == b".." || name.contains(&b'/') || name.len() > 255 {
        return Ok(None);
    }
    let share = h.share.clone();
    if share.cached() && super::sharecache::known_absent(h, name) {
        return Ok(None);
    }
    let node = share.with(|c| {
        let fid = match c.walk(h.fid, &[name]) {
            Ok(fid) => fid,
            Err(ENOENT) => {
                if share.cached() {
                    super::sharecache::note_absent(h, name);
                }
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        match c.getattr(fid) {
            Ok(attr) => Ok(share::make_node(&share, c, fid, &attr)),
            Err(e) => {
                share::clunk(c, fid);
                Err(e)
            }
        }
    })?;
    let Some(node) = node else { return Ok(None) };
    // Another CPU may have cached it meanwhile: keep the first.
    match cache_entry(dir, name, node.clone()) {
        Ok(()) => Ok(Some(node)),
        Err(_) => Ok(super::tree::cached_child(dir, name)),
    }
}

/// The cached entry `node` of shared directory `dir`, checked against the
/// host: the same node with fresh attributes, or if the host no longer has
/// that file under `name` (removed, or replaced by a rename), a node for
/// what it has now (None if nothing). A host that fails otherwise leaves
/// the entry as it was.
pub fn revalidate(dir: &Arc<Inode>, name: &[u8], node: Arc<Inode>) -> Option<Arc<Inode>> {
    let Some(h) = node.host() else { return Some(node) };
    if h.share.cached() {
        return Some(node); // cache=loose: the host does not change it
    }
    let is_file = matches!(node.kind, super::inode::Kind::File(_));
    let same = {
        // A write finishing meanwhile must not be undone by an older size.
        let _writes = is_file.then(|| h.writing.lock());
        match h.share.with(|c| c.getattr(h.fid)) {
            Ok(attr) if attr.ino == h.data.lock().host_ino => {
                share::set_meta(&node, &attr);
                if is_file {
                    h.data.lock().host_size(attr.size);
                }
                true
            }
            Ok(_) | Err(ENOENT) => false,
            Err(_) => true,
        }
    };
    if same {
        return Some(node);
    }
    forget_entry(dir, name);
    drop(node);
    lookup(dir, name)
}

/// Brings the entries of shared directory `dir` up to date with the host
/// (before a listing): names the host lacks are dropped from the cache,
/// names it has and the cache lacks are looked up. A directory of a
/// cached share is listed once: then its entries are the host's.
pub fn refresh(dir: &Arc<Inode>) -> Result<(), Errno> {
    let Some(h) = dir.host() else { return Ok(()) };
    if h.share.cached() && super::sharecache::listed(h) {
        return Ok(());
    }
    let names: Vec<Vec<u8>> = h.share.with(|c| {
        let fid = c.walk(h.fid, &[])?;
        let r = c.lopen(fid, c::O_RDONLY | c::O_DIRECTORY).and_then(|_| c.readdir(fid));
        c.clunk(fid);
        r.map(|entries| entries.into_iter().map(|(n, _)| n).collect())
    })?;
    let host: BTreeSet<&[u8]> = names.iter().map(|n| n.as_slice()).collect();
    let mut cached: BTreeSet<Vec<u8>> = BTreeSet::new();
    // Only the host's names: an entry the initramfs had at the mount
    // point stays.
    super::tree::visit_from(dir, 0, |name, node| {
        if node.host().is_some() {
            cached.insert(name.to_vec());
        }
        true
    });
    for name in cached.iter().filter(|n| !host.contains(n.as_slice())) {
        forget_entry(dir, name);
    }
    let mut complete = true;
    for name in names.iter().filter(|n| !cached.contains(*n)) {
        complete &= lookup_host(dir, name).is_ok();
    }
    if h.share.cached() && complete {
        super::sharecache::note_listed(h);
    }
    Ok(())
}
