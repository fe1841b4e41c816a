//! Host directories mounted in (`gometal run -mount HOST:GUEST[:ro]`): at
//! boot the share's tree is read over 9P into the in-memory tree at GUEST;
//! when the program exits, and at sync/syncfs, what changed under GUEST is
//! written back (files whose contents, size, mode or time changed, new
//! directories and symlinks, removals); fsync writes back one file or one
//! directory's entries (fs/hostsync.rs). So everything the in-memory tree
//! does (locks, mmap, rename) works on mounted files, and the host has every
//! change when `gometal run` returns. The price: the files must fit in
//! memory, the program does not see host changes made while it runs, a
//! changed file is written whole, fsync finds its file by searching the
//! share's tree, and a run stopped from outside (timeout, Ctrl-C) loses what
//! was not fsynced or synced: gometal stops QEMU without asking the kernel
//! to write back. A `:ro` mount refuses every change (fs/readonly.rs) and is
//! never written back.
//!
//! Nothing escapes the share: the client never follows a host symlink (it
//! reads the link and makes a guest symlink, which resolves inside the
//! guest's tree), walks only names it listed, and QEMU's local backend
//! refuses paths outside the shared directory.

use super::inode::{Inode, Kind};
use super::p9client::{self as c, Client};
use super::tree;
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::cpio::{S_IFDIR, S_IFLNK, S_IFMT, S_IFREG};
use gometal_core::errno::{Errno, EEXIST, ENOTDIR};
use gometal_core::p9::{parse_mount, MountSpec};
use spin::Mutex;

/// What the host has at a path, as last read or written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Known {
    pub kind: u32,
    pub ino: u64,
    pub mode: u32,
    pub size: u64,
    pub mtime_ns: u64,
}

pub(super) struct Mount {
    pub spec: MountSpec,
    pub client: Client,
    pub root_fid: u32,
    pub dir: Arc<Inode>,
    /// By path relative to the mount, without a leading slash.
    pub known: BTreeMap<Vec<u8>, Known>,
}

pub(super) static MOUNTS: Mutex<Vec<Mount>> = Mutex::new(Vec::new());

/// Mounts every `mount=` option; a failure is reported and the mount
/// skipped (the program then finds an empty directory, or none).
pub fn mount_all(options: &[Vec<u8>]) {
    for opt in options {
        let Some(spec) = parse_mount(opt) else {
            crate::println!("gometal: bad mount option {:?}", alloc::string::String::from_utf8_lossy(opt));
            continue;
        };
        let guest = alloc::string::String::from_utf8_lossy(&spec.guest).into_owned();
        match mount(spec) {
            Ok(m) => {
                let mut mounts = MOUNTS.lock();
                if m.spec.read_only {
                    super::readonly::mark_tree(&m.dir, mounts.len());
                }
                mounts.push(m);
            }
            Err(e) => crate::println!("gometal: cannot mount the host directory at {guest}: {e:?}"),
        }
    }
}

fn mount(spec: MountSpec) -> Result<Mount, Errno> {
    let dev = crate::drivers::virtio::p9::take(&spec.tag).ok_or(gometal_core::errno::ENODEV)?;
    let (client, root_fid) = Client::start(dev)?;
    let dir = make_dirs(&spec.guest)?;
    let mut m = Mount { spec, client, root_fid, dir, known: BTreeMap::new() };
    let (root, dir) = (m.root_fid, m.dir.clone());
    load_tree(&mut m, root, &dir)?;
    Ok(m)
}

/// mkdir -p in the in-memory tree.
fn make_dirs(path: &[u8]) -> Result<Arc<Inode>, Errno> {
    let mut dir = tree::root();
    for name in path.split(|&b| b == b'/').filter(|n| !n.is_empty()) {
        dir = match tree::child(&dir, name) {
            Some(d) if d.is_dir() => d,
            Some(_) => return Err(ENOTDIR),
            None => {
                let d = Inode::new_dir(0o755, crate::sched::clock::realtime_ns());
                tree::link(&dir, name, d.clone())?;
                d
            }
        };
    }
    Ok(dir)
}

pub(super) fn join(rel: &[u8], name: &[u8]) -> Vec<u8> {
    if rel.is_empty() {
        name.to_vec()
    } else {
        [rel, b"/", name].concat()
    }
}

pub(super) fn known_of(node: &Inode) -> Known {
    let m = node.meta.lock();
    let (kind, mode, mtime_ns) = (m.mode & S_IFMT, m.mode & 0o7777, m.mtime_ns);
    drop(m);
    Known { kind, ino: node.ino, mode, size: node.size(), mtime_ns }
}

/// A host directory still to copy: its fid (owned), the guest directory
/// and the path relative to the mount.
type Pending = (u32, Arc<Inode>, Vec<u8>);

/// Copies the share into `dir`, one directory at a time from a list (not
/// by recursion: a deep share must not overflow the kernel stack).
fn load_tree(m: &mut Mount, root_fid: u32, dir: &Arc<Inode>) -> Result<(), Errno> {
    let mut pending: Vec<Pending> = alloc::vec![(m.client.walk(root_fid, &[])?, dir.clone(), Vec::new())];
    // Directories get their host times back once their entries are in
    // (adding an entry touches a directory).
    let mut dirs: Vec<(Arc<Inode>, u64, Vec<u8>)> = Vec::new();
    while let Some((fid, dir, rel)) = pending.pop() {
        let result = load_dir(m, fid, &dir, &rel, &mut pending, &mut dirs);
        m.client.clunk(fid);
        if let Err(e) = result {
            for (fid, _, _) in pending {
                m.client.clunk(fid);
            }
            return Err(e);
        }
    }
    for (node, mtime_ns, path) in dirs {
        node.meta.lock().mtime_ns = mtime_ns;
        m.known.insert(path, known_of(&node));
    }
    Ok(())
}

/// Copies the entries of host directory `fid` into guest directory `dir`;
/// subdirectories go on `pending`.
fn load_dir(
    m: &mut Mount,
    fid: u32,
    dir: &Arc<Inode>,
    rel: &[u8],
    pending: &mut Vec<Pending>,
    dirs: &mut Vec<(Arc<Inode>, u64, Vec<u8>)>,
) -> Result<(), Errno> {
    let listing = m.client.walk(fid, &[])?;
    m.client.lopen(listing, c::O_RDONLY | c::O_DIRECTORY)?;
    let entries = m.client.readdir(listing);
    m.client.clunk(listing);
    for (name, _) in entries? {
        let child_fid = m.client.walk(fid, &[&name])?;
        match load_entry(m, child_fid, dir, rel, &name) {
            Ok(Some((node, mtime_ns))) => {
                let path = join(rel, &name);
                dirs.push((node.clone(), mtime_ns, path.clone()));
                pending.push((child_fid, node, path));
            }
            Ok(None) => m.client.clunk(child_fid),
            Err(e) => {
                m.client.clunk(child_fid);
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Copies one entry; a directory comes back (with its host mtime) for
/// the caller to fill.
fn load_entry(m: &mut Mount, fid: u32, dir: &Arc<Inode>, rel: &[u8], name: &[u8]) -> Result<Option<(Arc<Inode>, u64)>, Errno> {
    let attr = m.client.getattr(fid)?;
    let (kind, perm) = (attr.mode & S_IFMT, attr.mode & 0o7777);
    let node = match kind {
        S_IFDIR => Inode::new_dir(perm, attr.mtime_ns),
        S_IFLNK => Inode::new_symlink(m.client.readlink(fid)?, attr.mtime_ns),
        S_IFREG => {
            let node = Inode::new_file(perm, &[], attr.mtime_ns);
            load_file(m, fid, &node)?;
            node
        }
        _ => return Ok(None), // devices, sockets, FIFOs: not copied
    };
    match tree::link(dir, name, node.clone()) {
        Ok(()) => {}
        Err(EEXIST) => return Ok(None), // the initramfs has it: keep that
        Err(e) => return Err(e),
    }
    if kind == S_IFDIR {
        return Ok(Some((node, attr.mtime_ns)));
    }
    node.meta.lock().mtime_ns = attr.mtime_ns;
    m.known.insert(join(rel, name), known_of(&node));
    Ok(None)
}

fn load_file(m: &mut Mount, fid: u32, node: &Inode) -> Result<(), Errno> {
    let Kind::File(data) = &node.kind else { return Ok(()) };
    let open = m.client.walk(fid, &[])?;
    let result = (|| {
        m.client.lopen(open, c::O_RDONLY)?;
        let mut offset = 0;
        loop {
            let chunk = m.client.read(open, offset)?;
            if chunk.is_empty() {
                return Ok(());
            }
            data.lock().write(offset, &chunk)?;
            offset += chunk.len() as u64;
        }
    })();
    m.client.clunk(open);
    result
}
