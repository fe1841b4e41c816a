//! Host directories mounted in (`gometal run -mount HOST:GUEST[:ro]`): at
//! boot the share's tree is read over 9P into the in-memory tree at GUEST;
//! when the program exits, what changed under GUEST is written back (files
//! whose contents, size, mode or time changed, new directories and
//! symlinks, removals). So everything the in-memory tree does (locks, mmap,
//! rename) works on mounted files, and the host has every change when
//! `gometal run` returns. The price: the files must fit in memory, the
//! program does not see host changes made while it runs, fsync does not
//! reach the host, and a run killed from outside (timeout, Ctrl-C) writes
//! nothing back. A `:ro` mount is never written back.
//!
//! Nothing escapes the share: the client never follows a host symlink (it
//! reads the link and makes a guest symlink, which resolves inside the
//! guest's tree), walks only names it listed, and QEMU's local backend
//! refuses paths outside the shared directory.

use super::inode::{Inode, Kind};
use super::p9client::{self as c, Client};
use super::tree;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::cpio::{S_IFDIR, S_IFLNK, S_IFMT, S_IFREG};
use gometal_core::errno::{Errno, EEXIST, ENOTDIR};
use gometal_core::p9::{parse_mount, MountSpec};
use spin::Mutex;

/// What the host has at a path, as last read or written.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Known {
    kind: u32,
    ino: u64,
    mode: u32,
    size: u64,
    mtime_ns: u64,
}

struct Mount {
    spec: MountSpec,
    client: Client,
    root_fid: u32,
    dir: Arc<Inode>,
    /// By path relative to the mount, without a leading slash.
    known: BTreeMap<Vec<u8>, Known>,
}

static MOUNTS: Mutex<Vec<Mount>> = Mutex::new(Vec::new());

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
            Ok(m) => MOUNTS.lock().push(m),
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
    load_dir(&mut m, root, &dir, Vec::new())?;
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

fn join(rel: &[u8], name: &[u8]) -> Vec<u8> {
    if rel.is_empty() {
        name.to_vec()
    } else {
        [rel, b"/", name].concat()
    }
}

fn known_of(node: &Inode) -> Known {
    let m = node.meta.lock();
    let (kind, mode, mtime_ns) = (m.mode & S_IFMT, m.mode & 0o7777, m.mtime_ns);
    drop(m);
    Known { kind, ino: node.ino, mode, size: node.size(), mtime_ns }
}

/// Copies host directory `fid` (rel) into guest directory `dir`, depth first.
fn load_dir(m: &mut Mount, fid: u32, dir: &Arc<Inode>, rel: Vec<u8>) -> Result<(), Errno> {
    let listing = m.client.walk(fid, &[])?;
    m.client.lopen(listing, c::O_RDONLY | c::O_DIRECTORY)?;
    let entries = m.client.readdir(listing);
    m.client.clunk(listing);
    for (name, _) in entries? {
        let child_fid = m.client.walk(fid, &[&name])?;
        let result = load_entry(m, child_fid, dir, &rel, &name);
        m.client.clunk(child_fid);
        result?;
    }
    Ok(())
}

fn load_entry(m: &mut Mount, fid: u32, dir: &Arc<Inode>, rel: &[u8], name: &[u8]) -> Result<(), Errno> {
    let attr = m.client.getattr(fid)?;
    let (kind, perm) = (attr.mode & S_IFMT, attr.mode & 0o7777);
    let path = join(rel, name);
    let node = match kind {
        S_IFDIR => Inode::new_dir(perm, attr.mtime_ns),
        S_IFLNK => Inode::new_symlink(m.client.readlink(fid)?, attr.mtime_ns),
        S_IFREG => {
            let node = Inode::new_file(perm, &[], attr.mtime_ns);
            load_file(m, fid, &node)?;
            node
        }
        _ => return Ok(()), // devices, sockets, FIFOs: not copied
    };
    match tree::link(dir, name, node.clone()) {
        Ok(()) => {}
        Err(EEXIST) => return Ok(()), // the initramfs has it: keep that
        Err(e) => return Err(e),
    }
    if kind == S_IFDIR {
        load_dir(m, fid, &node, path.clone())?;
    }
    node.meta.lock().mtime_ns = attr.mtime_ns;
    m.known.insert(path, known_of(&node));
    Ok(())
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

/// Writes every read-write mount's changes back to the host (at exit).
pub fn sync_all() {
    let mut mounts = MOUNTS.lock();
    for m in mounts.iter_mut().filter(|m| !m.spec.read_only) {
        if let Err(e) = sync(m) {
            let guest = alloc::string::String::from_utf8_lossy(&m.spec.guest).into_owned();
            crate::println!("gometal: writing {guest} back to the host failed: {e:?}");
        }
    }
}

fn sync(m: &mut Mount) -> Result<(), Errno> {
    let mut seen = BTreeSet::new();
    let mut dirs = alloc::vec![(m.dir.clone(), Vec::new())];
    while let Some((dir, rel)) = dirs.pop() {
        let mut children = Vec::new();
        tree::visit_from(&dir, 0, |name, node| {
            children.push((name.to_vec(), node.clone()));
            true
        });
        for (name, node) in children {
            let path = join(&rel, &name);
            sync_entry(m, &rel, &name, &path, &node)?;
            if node.is_dir() {
                dirs.push((node, path.clone()));
            }
            seen.insert(path);
        }
    }
    let mut gone: Vec<(Vec<u8>, Known)> =
        m.known.iter().filter(|(p, _)| !seen.contains(*p)).map(|(p, k)| (p.clone(), *k)).collect();
    // Children before their directories.
    gone.sort_by_key(|(p, _)| core::cmp::Reverse(p.iter().filter(|&&b| b == b'/').count()));
    for (path, k) in gone {
        remove(m, &path, k.kind == S_IFDIR)?;
        m.known.remove(&path);
    }
    Ok(())
}

fn split_parent(path: &[u8]) -> (&[u8], &[u8]) {
    match path.iter().rposition(|&b| b == b'/') {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => (&[][..], path),
    }
}

fn walk_rel(m: &mut Mount, rel: &[u8]) -> Result<u32, Errno> {
    let names: Vec<&[u8]> = rel.split(|&b| b == b'/').filter(|n| !n.is_empty()).collect();
    let root = m.root_fid;
    m.client.walk(root, &names)
}

fn remove(m: &mut Mount, path: &[u8], dir: bool) -> Result<(), Errno> {
    let (parent, name) = split_parent(path);
    let pfid = walk_rel(m, parent)?;
    let r = m.client.unlinkat(pfid, name, dir);
    m.client.clunk(pfid);
    match r {
        Err(gometal_core::errno::ENOENT) => Ok(()),
        r => r,
    }
}

fn sync_entry(m: &mut Mount, rel: &[u8], name: &[u8], path: &[u8], node: &Arc<Inode>) -> Result<(), Errno> {
    let now = known_of(node);
    let mut before = m.known.get(path).copied();
    if let Some(b) = before.filter(|b| b.kind != now.kind) {
        remove(m, path, b.kind == S_IFDIR)?;
        before = None;
    }
    let mapped = matches!(&node.kind, Kind::File(d) if d.lock().mapped_shared);
    if before == Some(now) && !mapped {
        return Ok(());
    }
    let pfid = walk_rel(m, rel)?;
    let result = match now.kind {
        S_IFDIR if before.is_none() => m.client.mkdir(pfid, name, now.mode),
        S_IFDIR => set_attrs(m, path, now),
        S_IFLNK => {
            let Kind::Symlink(target) = &node.kind else { return Ok(()) };
            if before.is_some() {
                let _ = m.client.unlinkat(pfid, name, false);
            }
            m.client.symlink(pfid, name, target)
        }
        S_IFREG => write_file(m, pfid, name, node, before.is_some()).and_then(|_| set_attrs(m, path, now)),
        _ => Ok(()),
    };
    m.client.clunk(pfid);
    result?;
    m.known.insert(path.to_vec(), now);
    Ok(())
}

fn set_attrs(m: &mut Mount, path: &[u8], now: Known) -> Result<(), Errno> {
    let fid = walk_rel(m, path)?;
    let r = m.client.set_mode_mtime(fid, now.mode, now.mtime_ns);
    m.client.clunk(fid);
    r
}

/// Replaces the host file `name` in directory `pfid` by `node`'s bytes.
fn write_file(m: &mut Mount, pfid: u32, name: &[u8], node: &Inode, exists: bool) -> Result<(), Errno> {
    let Kind::File(data) = &node.kind else { return Ok(()) };
    let fid = if exists {
        let fid = m.client.walk(pfid, &[name])?;
        if let Err(e) = m.client.lopen(fid, c::O_WRONLY | c::O_TRUNC) {
            m.client.clunk(fid);
            return Err(e);
        }
        fid
    } else {
        // Tlcreate turns a fid of the directory into the new file's.
        let fid = m.client.walk(pfid, &[])?;
        if let Err(e) = m.client.lcreate(fid, name, c::O_WRONLY | c::O_CREAT | c::O_TRUNC, node.meta.lock().mode & 0o7777) {
            m.client.clunk(fid);
            return Err(e);
        }
        fid
    };
    let result = (|| {
        let step = m.client.io_size();
        let mut buf = alloc::vec![0u8; step];
        let mut offset = 0;
        loop {
            let n = data.lock().read(offset, &mut buf);
            if n == 0 {
                break;
            }
            m.client.write_all(fid, offset, &buf[..n])?;
            offset += n as u64;
        }
        m.client.fsync(fid)
    })();
    m.client.clunk(fid);
    result
}
