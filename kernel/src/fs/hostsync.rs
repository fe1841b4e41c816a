//! Writing a mounted share back to the host when the program exits
//! (hostmount.rs reads it in): every entry under the mount point is compared
//! with what the host had (`Known`), and what differs is written: changed
//! files whole, new directories and symlinks, modes and times; what is gone
//! is removed, children first. A rename is a removal and a creation.
//! fsync writes back less: one file, or one directory's entries.

use super::hostmount::{join, known_of, Known, Mount, MOUNTS};
use super::inode::{Inode, Kind};
use super::p9client as c;
use super::tree;
use alloc::collections::BTreeSet;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::cpio::{S_IFDIR, S_IFLNK, S_IFREG};
use gometal_core::errno::Errno;

/// Writes every read-write mount's changes back to the host: at exit, and
/// for sync and syncfs. EIO if a write-back failed.
pub fn sync_all() -> Result<(), Errno> {
    let mut result = Ok(());
    let mut mounts = MOUNTS.lock();
    for m in mounts.iter_mut().filter(|m| !m.spec.read_only) {
        if let Err(e) = sync(m) {
            result = Err(failed(m, e));
        }
    }
    result
}

fn failed(m: &Mount, e: Errno) -> Errno {
    let guest = alloc::string::String::from_utf8_lossy(&m.spec.guest).into_owned();
    crate::println!("gometal: writing {guest} back to the host failed: {e:?}");
    gometal_core::errno::EIO
}

/// fsync of `node`: if it is in a read-write share, writes back that file
/// (or, for a directory, its entries) and the directories on its way, so
/// it exists on the host under its current name. Nothing else.
pub fn sync_node(node: &Arc<Inode>) -> Result<(), Errno> {
    let mut mounts = MOUNTS.lock();
    for m in mounts.iter_mut() {
        let Some(rel) = super::hostfind::path_in(m, node) else { continue };
        if m.spec.read_only {
            return Ok(());
        }
        return sync_path(m, &rel, node).map_err(|e| failed(m, e));
    }
    Ok(())
}

fn sync_path(m: &mut Mount, rel: &[u8], node: &Arc<Inode>) -> Result<(), Errno> {
    let names: Vec<&[u8]> = rel.split(|&b| b == b'/').filter(|n| !n.is_empty()).collect();
    let mut dir = m.dir.clone();
    let mut at: Vec<u8> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let Some(child) = tree::child(&dir, name) else { return Ok(()) }; // moved meanwhile
        let path = join(&at, name);
        let last = i + 1 == names.len();
        // A directory on the way is written only if the host lacks it.
        let host_has_dir = m.known.get(&path).map(|k| k.kind) == Some(S_IFDIR);
        if last || !child.is_dir() || !host_has_dir {
            sync_entry(m, &at, name, &path, &child)?;
        }
        (dir, at) = (child, path);
    }
    if node.is_dir() {
        sync_children(m, &at, node)?;
    }
    Ok(())
}

/// fsync of a directory: its entries as they are now, new files with
/// their contents, gone ones removed (subdirectories are not descended).
fn sync_children(m: &mut Mount, rel: &[u8], dir: &Arc<Inode>) -> Result<(), Errno> {
    let mut children = Vec::new();
    tree::visit_from(dir, 0, |name, node| {
        children.push((name.to_vec(), node.clone()));
        true
    });
    let mut seen = BTreeSet::new();
    for (name, node) in children {
        let path = join(rel, &name);
        sync_entry(m, rel, &name, &path, &node)?;
        seen.insert(path);
    }
    let gone: Vec<(Vec<u8>, bool)> = m
        .known
        .iter()
        .filter(|(p, _)| split_parent(p).0 == rel && !seen.contains(*p))
        .map(|(p, k)| (p.clone(), k.kind == S_IFDIR))
        .collect();
    for (path, is_dir) in gone {
        if is_dir {
            remove_below(m, &path)?;
        }
        remove(m, &path, is_dir)?;
        m.known.remove(&path);
    }
    Ok(())
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

/// Removes from the host everything known under directory `path` (which
/// the guest replaced by something else), children first.
fn remove_below(m: &mut Mount, path: &[u8]) -> Result<(), Errno> {
    let prefix = [path, b"/"].concat();
    let mut below: Vec<(Vec<u8>, bool)> =
        m.known.iter().filter(|(p, _)| p.starts_with(&prefix)).map(|(p, k)| (p.clone(), k.kind == S_IFDIR)).collect();
    below.sort_by_key(|(p, _)| core::cmp::Reverse(p.iter().filter(|&&b| b == b'/').count()));
    for (p, dir) in below {
        remove(m, &p, dir)?;
        m.known.remove(&p);
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
        if b.kind == S_IFDIR {
            remove_below(m, path)?;
        }
        remove(m, path, b.kind == S_IFDIR)?;
        m.known.remove(path);
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
