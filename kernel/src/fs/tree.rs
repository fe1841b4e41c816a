//! The file tree: Linux's rootfs. At boot the initramfs is unpacked into an
//! in-memory tree, /tmp, /dev and /proc/self/exe are added, and from then on
//! everything is writable, as on Linux. Under a `-mount` share the entries
//! are a cache of the host directory's (fs/share.rs): a name missing from
//! it is looked up on the host, and every change is made on the host first
//! (fs/hostops.rs), then in the cache.
//!
//! Paths are walked component by component the way Linux does it: `..`
//! goes to the parent of the directory actually reached (after symlinks), a
//! trailing slash requires a directory, symlinks are followed at most
//! MAX_SYMLINKS times in one walk.

use super::inode::{Inode, Kind};
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::boot::cpio::{self, CpioError};
use gometal_core::linux::errno::*;
use crate::sched::sleeplock::SleepLock;
use spin::Once;

const MAX_SYMLINKS: usize = 40;
const NAME_MAX: usize = 255;

static ROOT: Once<Arc<Inode>> = Once::new();

pub fn root() -> Arc<Inode> {
    ROOT.get().expect("file tree not built").clone()
}

fn components(path: &[u8]) -> impl Iterator<Item = &[u8]> {
    path.split(|&b| b == b'/').filter(|c| !c.is_empty())
}

/// Unpacks the archive; returns the number of entries. `init` is the
/// program's path, which /proc/self/exe points to.
pub fn init(archive: &'static [u8], init: &[u8]) -> Result<usize, CpioError> {
    let root = Inode::new_dir(0o755, 0);
    ROOT.call_once(|| root.clone());
    let mut count = 0;
    for entry in cpio::entries(archive) {
        let e = entry?;
        let path = cpio::normalize_path(e.name);
        let mtime = e.mtime as u64 * 1_000_000_000;
        let parts: Vec<&[u8]> = components(&path).collect();
        let Some((name, dirs)) = parts.split_last() else { continue };
        let mut dir = root.clone();
        for d in dirs {
            dir = ensure_dir(&dir, d);
        }
        if cpio::is_dir(e.mode) {
            let d = ensure_dir(&dir, name);
            d.meta.lock().mode = e.mode;
        } else if cpio::is_symlink(e.mode) {
            replace(&dir, name, Inode::new_symlink(e.data.to_vec(), mtime));
        } else {
            replace(&dir, name, Inode::new_file(e.mode, e.data, mtime));
        }
        count += 1;
    }
    ensure_dir(&root, b"tmp").meta.lock().mode = cpio::S_IFDIR | 0o1777;
    super::devfiles::publish(&ensure_dir(&root, b"dev"));
    let proc_self = ensure_dir(&ensure_dir(&root, b"proc"), b"self");
    replace(&proc_self, b"exe", Inode::new_symlink(init.to_vec(), 0));
    add_net_files(&root);
    super::etcfiles::add(&root);
    Ok(count)
}

/// Go sizes its listen backlog from net.core.somaxconn, and resolves
/// "localhost" through /etc/hosts (kept if the program brought its own);
/// net.ipv4.ping_group_range says who may open ping sockets.
fn add_net_files(root: &Arc<Inode>) {
    let mut dir = root.clone();
    for name in [&b"proc"[..], b"sys", b"net", b"core"] {
        dir = ensure_dir(&dir, name);
    }
    replace(&dir, b"somaxconn", Inode::new_file(0o644, b"4096\n", 0));
    // Ping sockets are open to every group (net/ping.rs says why).
    let ipv4 = ensure_dir(&ensure_dir(&ensure_dir(&ensure_dir(root, b"proc"), b"sys"), b"net"), b"ipv4");
    replace(&ipv4, b"ping_group_range", Inode::new_file(0o644, b"0\t2147483647\n", 0));
    let etc = ensure_dir(root, b"etc");
    if child(&etc, b"hosts").is_none() {
        replace(&etc, b"hosts", Inode::new_file(0o644, b"127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n", 0));
    }
}

/// Adds `node` at absolute `path`, creating the directories on the way:
/// boot-time entries of drivers (UIO's /dev/uioN and /sys/class/uio).
pub fn add_at(path: &[u8], node: Arc<Inode>) {
    let parts: Vec<&[u8]> = components(path).collect();
    let Some((name, dirs)) = parts.split_last() else { return };
    let mut dir = root();
    for d in dirs {
        dir = ensure_dir(&dir, d);
    }
    replace(&dir, name, node);
}

/// Adds `node` as `name` in `dir`, replacing what was there (the kernel
/// building its own directories: /proc).
pub fn add_in(dir: &Arc<Inode>, name: &[u8], node: Arc<Inode>) {
    replace(dir, name, node);
}

pub(super) fn ensure_dir(parent: &Arc<Inode>, name: &[u8]) -> Arc<Inode> {
    match child(parent, name) {
        Some(d) if d.is_dir() => d,
        _ => {
            let d = Inode::new_dir(0o755, 0);
            replace(parent, name, d.clone());
            d
        }
    }
}

/// Puts `node` under `name` (boot-time unpacking: later entries win).
pub(super) fn replace(dir: &Arc<Inode>, name: &[u8], node: Arc<Inode>) {
    if let Kind::Dir(entries) = &dir.kind {
        entries.lock().remove(name);
    }
    let _ = attach(dir, name, node);
}

/// The entry `name` of `dir`. For a directory of a share, the host's:
/// a cached entry checked against the host, or looked up there.
pub fn child(dir: &Arc<Inode>, name: &[u8]) -> Option<Arc<Inode>> {
    if let Some(made_up) = super::synth::lookup(dir, name) {
        return made_up;
    }
    match cached_child(dir, name) {
        Some(node) if dir.host().is_some() => super::sharedir::revalidate(dir, name, node),
        Some(node) => Some(node),
        None => super::sharedir::lookup(dir, name),
    }
}

/// The entry `name` of `dir` if its entries have it (no host lookup).
pub fn cached_child(dir: &Inode, name: &[u8]) -> Option<Arc<Inode>> {
    match &dir.kind {
        Kind::Dir(entries) => entries.lock().get(name).cloned(),
        _ => None,
    }
}

/// A resolved path: the node and its absolute path (through the
/// directories actually traversed, so without symlinks or dot entries).
#[derive(Clone)]
pub struct Found {
    pub path: Vec<u8>,
    pub node: Arc<Inode>,
    /// The node's attributes were read from the host by this very walk (a
    /// share's entry, checked or looked up): stat need not ask again.
    pub fresh: bool,
}

/// The directories from the root down to `dir` (names and nodes); ENOENT if
/// `dir` was removed.
/// Names and directories from the root down to one directory.
type Chain = Vec<(Vec<u8>, Arc<Inode>)>;

/// Deepest directory the kernel follows up to the root. Renames are
/// serialised so the tree has no cycles; the bound makes sure a walk up
/// ends even if one appeared (it never grows a Vec without limit).
const MAX_DEPTH: usize = 4096;

fn chain_of(dir: &Arc<Inode>) -> Result<Chain, Errno> {
    let root = root();
    let mut chain = Vec::new();
    let mut at = dir.clone();
    while !Arc::ptr_eq(&at, &root) {
        if chain.len() >= MAX_DEPTH {
            return Err(ENAMETOOLONG);
        }
        let place = at.place.lock().clone();
        let (parent, name) = place.ok_or(ENOENT)?;
        let parent = parent.upgrade().ok_or(ENOENT)?;
        chain.push((name, at));
        at = parent;
    }
    chain.push((Vec::new(), root));
    chain.reverse();
    Ok(chain)
}

fn path_of_chain(chain: &[(Vec<u8>, Arc<Inode>)]) -> Vec<u8> {
    if chain.len() <= 1 {
        return b"/".to_vec();
    }
    chain[1..].iter().flat_map(|(n, _)| [b"/".as_slice(), n.as_slice()].concat()).collect()
}

/// The current absolute path of directory `dir`.
pub fn path_of(dir: &Arc<Inode>) -> Result<Vec<u8>, Errno> {
    Ok(path_of_chain(&chain_of(dir)?))
}

/// Whether `path` names a directory by its form: a trailing `/`, or a last
/// component of `.` or `..`.
fn names_directory(path: &[u8]) -> bool {
    path.ends_with(b"/") || path.ends_with(b"/.") || path.ends_with(b"/..") || path == b"." || path == b".."
}

/// Walks `path` from directory `start` (ignored for absolute paths).
/// Symlinks in the middle are always followed, the last only if `follow`.
pub fn walk(start: &Arc<Inode>, path: &[u8], follow: bool) -> Result<Found, Errno> {
    let mut must_be_dir = names_directory(path);
    let mut stack = if path.starts_with(b"/") { chain_of(&root())? } else { chain_of(start)? };
    let mut queue: VecDeque<Vec<u8>> = components(path).map(|c| c.to_vec()).collect();
    let mut links = 0;
    let mut fresh = false;
    while let Some(part) = queue.pop_front() {
        let here = stack.last().expect("chain has the root").1.clone();
        if !here.is_dir() {
            return Err(ENOTDIR);
        }
        match part.as_slice() {
            b"." => continue,
            b".." => {
                if stack.len() > 1 {
                    stack.pop();
                }
                fresh = false;
                continue;
            }
            _ => {}
        }
        if part.len() > NAME_MAX {
            return Err(ENAMETOOLONG);
        }
        let next = child(&here, &part).ok_or(ENOENT)?;
        if let Kind::Symlink(target) = &next.kind {
            if !queue.is_empty() || follow || must_be_dir {
                links += 1;
                if links > MAX_SYMLINKS {
                    return Err(ELOOP);
                }
                if target.starts_with(b"/") {
                    stack.truncate(1);
                }
                // A last component that is a link to "x/" must be a directory.
                if queue.is_empty() && names_directory(target) {
                    must_be_dir = true;
                }
                for c in components(target).collect::<Vec<_>>().into_iter().rev() {
                    queue.push_front(c.to_vec());
                }
                continue;
            }
        }
        fresh = here.host().is_some();
        stack.push((part, next));
    }
    let node = stack.last().expect("chain has the root").1.clone();
    if must_be_dir && !node.is_dir() {
        return Err(ENOTDIR);
    }
    Ok(Found { path: path_of_chain(&stack), node, fresh })
}

/// Resolves an absolute path from the root.
pub fn resolve(abs: &[u8], follow: bool) -> Result<Found, Errno> {
    walk(&root(), abs, follow)
}

/// Where a name is created, removed or renamed: the directory holding the
/// last component of `path`, that component, and whether `path` had a
/// trailing slash. A last component of `.` or `..` is returned as is, for
/// the caller to refuse as Linux does.
pub fn parent_of(start: &Arc<Inode>, path: &[u8]) -> Result<(Found, Vec<u8>, bool), Errno> {
    let trimmed_len = path.iter().rposition(|&b| b != b'/').map_or(0, |i| i + 1);
    let trailing = trimmed_len < path.len();
    let trimmed = &path[..trimmed_len];
    if trimmed.is_empty() {
        return Err(EBUSY); // the root itself
    }
    let cut = trimmed.iter().rposition(|&b| b == b'/');
    let (dir_part, name): (&[u8], &[u8]) = match cut {
        Some(0) => (b"/", &trimmed[1..]),
        Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
        None => (b".", trimmed),
    };
    if name.len() > NAME_MAX {
        return Err(ENAMETOOLONG);
    }
    let dir = walk(start, dir_part, true)?;
    if !dir.node.is_dir() {
        return Err(ENOTDIR);
    }
    Ok((dir, name.to_vec(), trailing))
}

/// Adds `node` as `name` in `dir`; EEXIST if taken, ENOSPC when the kernel
/// heap (which holds names and inodes) is nearly full.
pub fn link(dir: &Arc<Inode>, name: &[u8], node: Arc<Inode>) -> Result<(), Errno> {
    if !crate::mm::heap::has_room() {
        return Err(ENOSPC);
    }
    super::readonly::check(dir)?;
    if dir.host().is_some() {
        if cached_child(dir, name).is_some() {
            return Err(EEXIST);
        }
        super::hostops::create(dir, name, &node)?;
        // The host made it: a lookup on another CPU may have cached the
        // new name meanwhile, as another node; this one replaces it.
        if let Err(EEXIST) = attach(dir, name, node.clone()) {
            super::sharedir::forget_entry(dir, name);
            return attach(dir, name, node);
        }
        return Ok(());
    } else if node.host().is_some() {
        return Err(EXDEV); // a hard link out of a share
    }
    attach(dir, name, node)
}

/// `link` without the space check (rename moves an existing name).
pub(super) fn attach(dir: &Arc<Inode>, name: &[u8], node: Arc<Inode>) -> Result<(), Errno> {
    // "." and ".." always exist; an entry by that name would be invisible
    // (listings show the real ones) and make its directory unremovable.
    // Every caller checks; this is the last line (the fuzzer found linkat
    // and a symlink-followed O_CREAT without it).
    if name == b"." || name == b".." || name.is_empty() || name.contains(&b'/') {
        return Err(EEXIST);
    }
    let Kind::Dir(entries) = &dir.kind else { return Err(ENOTDIR) };
    let mut e = entries.lock();
    if e.contains_key(name) {
        return Err(EEXIST);
    }
    if node.is_dir() {
        dir.meta.lock().nlink += 1;
        *node.place.lock() = Some((Arc::downgrade(dir), name.to_vec()));
    }
    e.insert(name.to_vec(), node);
    drop(e);
    dir.touch();
    Ok(())
}

/// Removes `name` from `dir`: a directory only if `want_dir` (and empty),
/// anything else only if not.
pub fn unlink(dir: &Arc<Inode>, name: &[u8], want_dir: bool) -> Result<(), Errno> {
    let Kind::Dir(entries) = &dir.kind else { return Err(ENOTDIR) };
    super::readonly::check(dir)?;
    if let Some(node) = child(dir, name).filter(|n| n.host().is_some()) {
        return super::sharedir::unlink(dir, name, &node, want_dir);
    }
    let mut e = entries.lock();
    let node = e.get(name).ok_or(ENOENT)?.clone();
    match (&node.kind, want_dir) {
        (Kind::Dir(children), true) => {
            if !children.lock_nested(crate::sync::LockClass::DirEntriesChild).is_empty() {
                return Err(ENOTEMPTY);
            }
            dir.meta.lock().nlink -= 1;
            *node.place.lock() = None;
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

/// Whether `node` is `dir` or one of its ancestors (ENOENT if `dir` was
/// removed).
fn is_ancestor(node: &Arc<Inode>, dir: &Arc<Inode>) -> Result<bool, Errno> {
    Ok(chain_of(dir)?.iter().any(|(_, n)| Arc::ptr_eq(n, node)))
}

/// Held for a whole rename, like Linux's s_vfs_rename_mutex: the check that
/// a directory does not move into itself and the move must be one step, or
/// `A -> B/A` and `B -> A/B` on two CPUs cut a cycle out of the tree.
/// A sleep lock: a rename in a share waits for the host's answer.
static RENAME: SleepLock<()> = SleepLock::new(());

/// Renames `from_dir/from` to `to_dir/to` with Linux's rules for what may
/// replace what.
pub fn rename(from: (&Arc<Inode>, &[u8]), to: (&Arc<Inode>, &[u8]), noreplace: bool) -> Result<(), Errno> {
    let _serial = RENAME.lock();
    let (from_dir, from_name) = from;
    let (to_dir, to_name) = to;
    let node = child(from_dir, from_name).ok_or(ENOENT)?;
    super::readonly::check_move(from_dir, to_dir)?;
    if node.is_dir() && is_ancestor(&node, to_dir)? {
        return Err(EINVAL); // into itself
    }
    if from_dir.host().is_some() {
        return super::sharedir::rename((from_dir, from_name), (to_dir, to_name), &node, noreplace);
    }
    if let Some(existing) = child(to_dir, to_name) {
        if Arc::ptr_eq(&existing, &node) {
            return Ok(());
        }
        if noreplace {
            return Err(EEXIST);
        }
        match (node.is_dir(), existing.is_dir()) {
            (true, false) => return Err(ENOTDIR),
            (false, true) => return Err(EISDIR),
            (true, true) => unlink(to_dir, to_name, true)?,
            (false, false) => unlink(to_dir, to_name, false)?,
        }
    }
    if let Kind::Dir(entries) = &from_dir.kind {
        entries.lock().remove(from_name);
    }
    if node.is_dir() {
        from_dir.meta.lock().nlink -= 1;
    }
    from_dir.touch();
    attach(to_dir, to_name, node)
}

/// Visits the entries of `dir` in name order from the `skip`-th on, until
/// `f` returns false. Nothing is copied: listing a huge directory costs no
/// heap (the directory's lock is held meanwhile; `f` must not take it).
pub fn visit_from(dir: &Inode, skip: usize, mut f: impl FnMut(&[u8], &Arc<Inode>) -> bool) {
    if let Kind::Dir(entries) = &dir.kind {
        for (name, node) in entries.lock().iter().skip(skip) {
            if !f(name, node) {
                break;
            }
        }
    }
}

/// The parent of directory `dir` (itself for the root or a removed one).
pub fn parent_dir(dir: &Arc<Inode>) -> Arc<Inode> {
    dir.place.lock().as_ref().and_then(|(p, _)| p.upgrade()).unwrap_or_else(|| dir.clone())
}
