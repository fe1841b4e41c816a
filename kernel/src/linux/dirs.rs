//! Directory and metadata system calls: the working directory, listing,
//! creating, removing, renaming and linking names, permissions and times.

use super::{Args, SysResult};
use crate::fs::fd::{self, FileKind};
use crate::fs::inode::{Inode, Kind};
use crate::fs::path;
use crate::fs::tree;
use crate::mm::uaccess;
use crate::process::process;
use crate::sched::clock;
use alloc::vec::Vec;
use gometal_core::cpio::{S_IFDIR, S_IFMT, S_IFREG};
use crate::fs::inode::S_IFIFO;
use gometal_core::errno::*;

const AT_SYMLINK_NOFOLLOW: u64 = 0x100;
const AT_REMOVEDIR: u64 = 0x200;
const AT_SYMLINK_FOLLOW: u64 = 0x400;
const AT_EMPTY_PATH: u64 = 0x1000;
const RENAME_NOREPLACE: u64 = 1;
const UMASK: u32 = 0o022;

pub fn getcwd(a: &Args) -> SysResult {
    let mut cwd = tree::path_of(&path::cwd())?;
    cwd.push(0);
    if cwd.len() > a[1] as usize {
        return Err(ERANGE);
    }
    uaccess::write_bytes(a[0], &cwd)?;
    Ok(cwd.len() as isize)
}

pub fn chdir(a: &Args) -> SysResult {
    let found = path::lookup(path::AT_FDCWD as u64, a[0], true)?;
    if !found.node.is_dir() {
        return Err(ENOTDIR);
    }
    *process().cwd.lock() = found.node;
    Ok(0)
}

pub fn fchdir(a: &Args) -> SysResult {
    match &fd::file(a[0])?.kind {
        FileKind::Directory(node) => {
            *process().cwd.lock() = node.clone();
            Ok(0)
        }
        _ => Err(ENOTDIR),
    }
}

fn dirent_type(node: &Inode) -> u8 {
    match node.file_type() {
        0o040000 => 4,  // DT_DIR
        0o120000 => 10, // DT_LNK
        0o020000 => 2,  // DT_CHR
        _ => 8,         // DT_REG
    }
}

/// getdents64: ".", ".." and the entries in name order; the file offset
/// counts entries already returned.
pub fn getdents64(a: &Args) -> SysResult {
    let file = fd::file(a[0])?;
    let FileKind::Directory(node) = &file.kind else { return Err(ENOTDIR) };
    let parent = tree::parent_dir(node);
    let mut entries = alloc::vec![(b".".to_vec(), node.clone()), (b"..".to_vec(), parent)];
    entries.extend(tree::list(node));
    let mut offset = file.offset.lock();
    let mut out = Vec::new();
    let mut index = *offset as usize;
    while let Some((name, n)) = entries.get(index) {
        let reclen = (19 + name.len() + 1).div_ceil(8) * 8;
        if out.len() + reclen > a[2] as usize {
            break;
        }
        out.extend_from_slice(&n.ino.to_le_bytes());
        out.extend_from_slice(&((index + 1) as i64).to_le_bytes());
        out.extend_from_slice(&(reclen as u16).to_le_bytes());
        out.push(dirent_type(n));
        out.extend_from_slice(name);
        out.resize(out.len() + reclen - 19 - name.len(), 0);
        index += 1;
    }
    if out.is_empty() && index < entries.len() {
        return Err(EINVAL); // buffer too small for one entry
    }
    uaccess::write_bytes(a[1], &out)?;
    *offset = index as u64;
    Ok(out.len() as isize)
}

pub fn mkdirat(a: &Args) -> SysResult {
    let (dir, name, _) = path::lookup_parent(a[0], a[1])?;
    if name == b"." || name == b".." {
        return Err(EEXIST);
    }
    let node = Inode::new_dir(a[2] as u32 & !UMASK, clock::realtime_ns());
    tree::link(&dir.node, &name, node)?;
    Ok(0)
}

pub fn mknodat(a: &Args) -> SysResult {
    let mode = a[2] as u32;
    let (dir, name, trailing) = path::lookup_parent(a[0], a[1])?;
    if tree::child(&dir.node, &name).is_some() || name == b"." || name == b".." {
        return Err(EEXIST);
    }
    if trailing {
        return Err(ENOENT);
    }
    let now = clock::realtime_ns();
    let node = match mode & S_IFMT {
        S_IFIFO => {
            let pipe = crate::fs::pipe::Pipe::new_named().ok_or(ENOSPC)?;
            Inode::new_fifo(mode & !UMASK, alloc::sync::Arc::new(pipe), now)
        }
        0 | S_IFREG => Inode::new_file(mode & !UMASK, &[], now),
        S_IFDIR => return Err(EINVAL),
        // Device nodes would need drivers behind them; sockets, networking.
        _ => return Err(EPERM),
    };
    tree::link(&dir.node, &name, node)?;
    Ok(0)
}

pub fn unlinkat(a: &Args) -> SysResult {
    if a[2] & !AT_REMOVEDIR != 0 {
        return Err(EINVAL);
    }
    let rmdir = a[2] & AT_REMOVEDIR != 0;
    let (dir, name, trailing) = path::lookup_parent(a[0], a[1])?;
    match (name.as_slice(), rmdir) {
        (b".", true) => return Err(EINVAL),
        (b"..", true) => return Err(ENOTEMPTY),
        (b"." | b"..", false) => return Err(EISDIR),
        _ => {}
    }
    if trailing && !rmdir {
        let node = tree::child(&dir.node, &name).ok_or(ENOENT)?;
        return Err(if node.is_dir() { EISDIR } else { ENOTDIR });
    }
    tree::unlink(&dir.node, &name, rmdir)?;
    Ok(0)
}

pub fn renameat2(a: &Args) -> SysResult {
    let flags = a[4];
    if flags & !RENAME_NOREPLACE != 0 {
        return Err(EINVAL); // RENAME_EXCHANGE and RENAME_WHITEOUT are not supported
    }
    let (from_dir, from_name, from_slash) = path::lookup_parent(a[0], a[1])?;
    let (to_dir, to_name, to_slash) = path::lookup_parent(a[2], a[3])?;
    for n in [&from_name, &to_name] {
        if n.as_slice() == b"." || n.as_slice() == b".." {
            return Err(EBUSY);
        }
    }
    let node = tree::child(&from_dir.node, &from_name).ok_or(ENOENT)?;
    if (from_slash || to_slash) && !node.is_dir() {
        return Err(ENOTDIR);
    }
    tree::rename((&from_dir.node, &from_name), (&to_dir.node, &to_name), flags & RENAME_NOREPLACE != 0)?;
    Ok(0)
}

pub fn linkat(a: &Args) -> SysResult {
    let follow = a[4] & AT_SYMLINK_FOLLOW != 0;
    let target = path::lookup(a[0], a[1], follow)?;
    if target.node.is_dir() {
        return Err(EPERM);
    }
    let (dir, name, trailing) = path::lookup_parent(a[2], a[3])?;
    if trailing {
        return Err(ENOENT);
    }
    tree::link(&dir.node, &name, target.node.clone())?;
    target.node.meta.lock().nlink += 1;
    Ok(0)
}

pub fn symlinkat(a: &Args) -> SysResult {
    let target = path::read(a[0])?;
    let (dir, name, trailing) = path::lookup_parent(a[1], a[2])?;
    if tree::child(&dir.node, &name).is_some() || name == b"." || name == b".." {
        return Err(EEXIST);
    }
    if trailing {
        return Err(ENOENT);
    }
    tree::link(&dir.node, &name, Inode::new_symlink(target, clock::realtime_ns()))?;
    Ok(0)
}

pub fn readlinkat(a: &Args) -> SysResult {
    let found = path::lookup(a[0], a[1], false)?;
    let Kind::Symlink(target) = &found.node.kind else { return Err(EINVAL) };
    let n = target.len().min(a[3] as usize);
    uaccess::write_bytes(a[2], &target[..n])?;
    Ok(n as isize)
}

/// Everything is permitted to root, which the program is; only existence
/// is checked.
pub fn faccessat(a: &Args) -> SysResult {
    if a[2] & !7 != 0 {
        return Err(EINVAL);
    }
    path::lookup(a[0], a[1], true)?;
    Ok(0)
}

/// The node a path-or-descriptor call is about.
fn target(dirfd: u64, ptr: u64, flags: u64) -> Result<alloc::sync::Arc<Inode>, isize> {
    if ptr == 0 || (flags & AT_EMPTY_PATH != 0 && uaccess::read_cstr(ptr, 1).is_ok_and(|p| p.is_empty())) {
        return node_of_fd(dirfd);
    }
    Ok(path::lookup(dirfd, ptr, flags & AT_SYMLINK_NOFOLLOW == 0)?.node)
}

fn node_of_fd(fdno: u64) -> Result<alloc::sync::Arc<Inode>, isize> {
    match &fd::file(fdno)?.kind {
        FileKind::File(n) | FileKind::Directory(n) => Ok(n.clone()),
        _ => Err(EINVAL),
    }
}

fn set_mode(node: &Inode, mode: u64) -> SysResult {
    let mut m = node.meta.lock();
    m.mode = (m.mode & S_IFMT) | (mode as u32 & 0o7777);
    m.ctime_ns = clock::realtime_ns();
    Ok(0)
}

pub fn fchmod(a: &Args) -> SysResult {
    set_mode(&*node_of_fd(a[0])?, a[1])
}

pub fn fchmodat(a: &Args) -> SysResult {
    set_mode(&*target(a[0], a[1], 0)?, a[2])
}

/// fchmodat2 (Linux 6.6): fchmodat with flags. Symlinks have no mode of
/// their own, so AT_SYMLINK_NOFOLLOW on one is EOPNOTSUPP, as on Linux.
pub fn fchmodat2(a: &Args) -> SysResult {
    if a[3] & !(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH) != 0 {
        return Err(EINVAL);
    }
    let node = target(a[0], a[1], a[3])?;
    if matches!(node.kind, Kind::Symlink(_)) {
        return Err(EOPNOTSUPP);
    }
    set_mode(&node, a[2])
}

fn set_owner(node: &Inode, uid: u64, gid: u64) -> SysResult {
    let mut m = node.meta.lock();
    if uid as u32 != u32::MAX {
        m.uid = uid as u32;
    }
    if gid as u32 != u32::MAX {
        m.gid = gid as u32;
    }
    Ok(0)
}

pub fn fchown(a: &Args) -> SysResult {
    set_owner(&*node_of_fd(a[0])?, a[1], a[2])
}

pub fn fchownat(a: &Args) -> SysResult {
    set_owner(&*target(a[0], a[1], a[4])?, a[2], a[3])
}

const UTIME_NOW: i64 = (1 << 30) - 1;
const UTIME_OMIT: i64 = (1 << 30) - 2;

pub fn utimensat(a: &Args) -> SysResult {
    let node = target(a[0], a[1], a[3])?;
    let now = clock::realtime_ns() as i64;
    let times = if a[2] == 0 {
        [(0, UTIME_NOW), (0, UTIME_NOW)]
    } else {
        [uaccess::read_i64_pair(a[2])?, uaccess::read_i64_pair(a[2] + 16)?]
    };
    let pick = |(sec, nsec): (i64, i64)| -> Result<Option<u64>, isize> {
        match nsec {
            UTIME_OMIT => Ok(None),
            UTIME_NOW => Ok(Some(now as u64)),
            n if (0..1_000_000_000).contains(&n) => Ok(Some((sec.max(0) as u64) * 1_000_000_000 + n as u64)),
            _ => Err(EINVAL),
        }
    };
    let (atime, mtime) = (pick(times[0])?, pick(times[1])?);
    let mut m = node.meta.lock();
    if let Some(t) = atime {
        m.atime_ns = t;
    }
    if let Some(t) = mtime {
        m.mtime_ns = t;
    }
    m.ctime_ns = now as u64;
    Ok(0)
}
