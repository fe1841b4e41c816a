//! The file tree: Linux's rootfs. At boot the initramfs is unpacked into an
//! in-memory tree, /tmp and /dev are added, and from then on everything is
//! writable, as on Linux. Paths are resolved component by component from the
//! root, following symlinks (at most MAX_SYMLINKS); `..` is lexical.

use super::inode::{Device, Inode, Kind};
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::cpio::{self, CpioError};
use gometal_core::errno::*;
use spin::Once;

const MAX_SYMLINKS: usize = 8;
const NAME_MAX: usize = 255;

static ROOT: Once<Arc<Inode>> = Once::new();

pub fn root() -> Arc<Inode> {
    ROOT.get().expect("file tree not built").clone()
}

fn components(path: &[u8]) -> impl Iterator<Item = &[u8]> {
    path.split(|&b| b == b'/').filter(|c| !c.is_empty())
}

/// Unpacks the archive; returns the number of entries.
pub fn init(archive: &'static [u8]) -> Result<usize, CpioError> {
    let root = Inode::new_dir(0o755, 0);
    ROOT.call_once(|| root.clone());
    let mut count = 0;
    for entry in cpio::entries(archive) {
        let e = entry?;
        let path = cpio::normalize_path(e.name);
        let mtime = e.mtime as u64 * 1_000_000_000;
        let node = if cpio::is_dir(e.mode) {
            Inode::new_dir(e.mode, mtime)
        } else if cpio::is_symlink(e.mode) {
            Inode::new_symlink(e.data.to_vec(), mtime)
        } else {
            Inode::new_file(e.mode, e.data, mtime)
        };
        let (dir, name) = make_parents(&root, &path);
        if !name.is_empty() {
            place(&dir, name, node);
        }
        count += 1;
    }
    let tmp = ensure_dir(&root, b"tmp");
    tmp.meta.lock().mode = cpio::S_IFDIR | 0o1777;
    let dev = ensure_dir(&root, b"dev");
    for (name, d) in [
        (&b"null"[..], Device::Null),
        (b"zero", Device::Zero),
        (b"random", Device::Random),
        (b"urandom", Device::Random),
        (b"console", Device::Console),
        (b"tty", Device::Console),
    ] {
        place(&dev, name, Inode::new_device(d));
    }
    Ok(count)
}

/// Creates missing directories along `path`; returns the parent and the
/// last component.
fn make_parents<'p>(root: &Arc<Inode>, path: &'p [u8]) -> (Arc<Inode>, &'p [u8]) {
    let parts: Vec<&[u8]> = components(path).collect();
    let Some((last, dirs)) = parts.split_last() else { return (root.clone(), b"") };
    let mut dir = root.clone();
    for d in dirs {
        dir = ensure_dir(&dir, d);
    }
    (dir, last)
}

fn ensure_dir(parent: &Arc<Inode>, name: &[u8]) -> Arc<Inode> {
    if let Some(existing) = child(parent, name) {
        if existing.is_dir() {
            return existing;
        }
    }
    let d = Inode::new_dir(0o755, 0);
    place(parent, name, d.clone());
    d
}

/// Puts `node` under `name` in directory `dir` (replacing an entry).
fn place(dir: &Arc<Inode>, name: &[u8], node: Arc<Inode>) {
    if let Kind::Dir(entries) = &dir.kind {
        if node.is_dir() {
            dir.meta.lock().nlink += 1;
        }
        entries.lock().insert(name.to_vec(), node);
    }
}

pub fn child(dir: &Inode, name: &[u8]) -> Option<Arc<Inode>> {
    match &dir.kind {
        Kind::Dir(entries) => entries.lock().get(name).cloned(),
        _ => None,
    }
}

/// A resolved path: the node and its absolute, normalized path.
pub struct Found {
    pub path: Vec<u8>,
    pub node: Arc<Inode>,
}

/// Resolves an absolute path. Symlinks in directories are always followed;
/// in the last component only if `follow`.
pub fn resolve(abs: &[u8], follow: bool) -> Result<Found, isize> {
    let mut path = cpio::normalize_path(abs);
    'restart: for _ in 0..=MAX_SYMLINKS {
        let mut node = root();
        let parts: Vec<Vec<u8>> = components(&path).map(|c| c.to_vec()).collect();
        for (i, part) in parts.iter().enumerate() {
            if part.len() > NAME_MAX {
                return Err(ENAMETOOLONG);
            }
            if !node.is_dir() {
                return Err(ENOTDIR);
            }
            let next = child(&node, part).ok_or(ENOENT)?;
            let last = i + 1 == parts.len();
            if let Kind::Symlink(target) = &next.kind {
                if !last || follow {
                    let dir: Vec<u8> = parts[..i].iter().flat_map(|p| [b"/".as_slice(), p].concat()).collect();
                    let rest: Vec<u8> = parts[i + 1..].iter().flat_map(|p| [b"/".as_slice(), p].concat()).collect();
                    let base = if target.starts_with(b"/") { Vec::new() } else { dir };
                    path = cpio::normalize_path(&[base.as_slice(), b"/", target, &rest].concat());
                    continue 'restart;
                }
            }
            node = next;
        }
        return Ok(Found { path, node });
    }
    Err(ELOOP)
}

/// The directory that would hold `abs` and the final name (for creating,
/// removing and renaming). The directory must exist.
pub fn parent_of(abs: &[u8]) -> Result<(Found, Vec<u8>), isize> {
    let norm = cpio::normalize_path(abs);
    let cut = norm.iter().rposition(|&b| b == b'/').unwrap_or(0);
    let name = norm[cut + 1..].to_vec();
    if name.is_empty() {
        return Err(EBUSY_ROOT);
    }
    if name.len() > NAME_MAX {
        return Err(ENAMETOOLONG);
    }
    let dir = resolve(&norm[..cut.max(1)], true)?;
    if !dir.node.is_dir() {
        return Err(ENOTDIR);
    }
    Ok((dir, name))
}

/// What Linux answers for operations on "/" itself.
const EBUSY_ROOT: isize = 16; // EBUSY

/// Adds `node` as `name` in `dir`; EEXIST if taken, ENOSPC when the kernel
/// heap (which holds names and inodes) is nearly full.
pub fn link(dir: &Arc<Inode>, name: &[u8], node: Arc<Inode>) -> Result<(), isize> {
    if !crate::mm::heap::has_room() {
        return Err(ENOSPC);
    }
    attach(dir, name, node)
}

/// `link` without the space check (rename moves an existing name).
fn attach(dir: &Arc<Inode>, name: &[u8], node: Arc<Inode>) -> Result<(), isize> {
    let Kind::Dir(entries) = &dir.kind else { return Err(ENOTDIR) };
    let mut e = entries.lock();
    if e.contains_key(name) {
        return Err(EEXIST);
    }
    if node.is_dir() {
        dir.meta.lock().nlink += 1;
    }
    e.insert(name.to_vec(), node);
    drop(e);
    dir.touch();
    Ok(())
}

/// Removes `name` from `dir`: a directory only if `want_dir` (and empty),
/// anything else only if not.
pub fn unlink(dir: &Arc<Inode>, name: &[u8], want_dir: bool) -> Result<(), isize> {
    let Kind::Dir(entries) = &dir.kind else { return Err(ENOTDIR) };
    let mut e = entries.lock();
    let node = e.get(name).ok_or(ENOENT)?.clone();
    match (&node.kind, want_dir) {
        (Kind::Dir(children), true) => {
            if !children.lock().is_empty() {
                return Err(ENOTEMPTY);
            }
            dir.meta.lock().nlink -= 1;
        }
        (Kind::Dir(_), false) => return Err(EISDIR),
        (_, true) => return Err(ENOTDIR),
        _ => {}
    }
    e.remove(name);
    drop(e);
    let mut m = node.meta.lock();
    m.nlink = m.nlink.saturating_sub(1);
    drop(m);
    dir.touch();
    Ok(())
}

/// Renames `from_dir/from` to `to_dir/to` with Linux's rules for what may
/// replace what. `to_path` is the destination's absolute path (to refuse
/// moving a directory into itself).
pub fn rename(
    from: (&Found, &[u8]),
    to: (&Found, &[u8]),
    noreplace: bool,
) -> Result<(), isize> {
    let (from_dir, from_name) = from;
    let (to_dir, to_name) = to;
    let node = child(&from_dir.node, from_name).ok_or(ENOENT)?;
    if node.is_dir() {
        let src = [from_dir.path.as_slice(), b"/", from_name].concat();
        let src = cpio::normalize_path(&src);
        let dst = cpio::normalize_path(&[to_dir.path.as_slice(), b"/", to_name].concat());
        if dst.starts_with(&src) && (dst.len() == src.len() || dst[src.len()] == b'/') && dst != src {
            return Err(EINVAL);
        }
    }
    if let Some(existing) = child(&to_dir.node, to_name) {
        if Arc::ptr_eq(&existing, &node) {
            return Ok(());
        }
        if noreplace {
            return Err(EEXIST);
        }
        match (node.is_dir(), existing.is_dir()) {
            (true, false) => return Err(ENOTDIR),
            (false, true) => return Err(EISDIR),
            (true, true) => unlink(&to_dir.node, to_name, true)?,
            (false, false) => unlink(&to_dir.node, to_name, false)?,
        }
    }
    // Detach, then attach (the nlink bookkeeping follows the directory).
    if let Kind::Dir(entries) = &from_dir.node.kind {
        entries.lock().remove(from_name);
    }
    if node.is_dir() {
        from_dir.node.meta.lock().nlink -= 1;
    }
    from_dir.node.touch();
    attach(&to_dir.node, to_name, node)
}

/// Entries of a directory, in name order.
pub fn list(dir: &Inode) -> Vec<(Vec<u8>, Arc<Inode>)> {
    match &dir.kind {
        Kind::Dir(entries) => entries.lock().iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => Vec::new(),
    }
}
