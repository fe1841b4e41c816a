//! Directory and metadata system calls: the working directory, listing,
//! creating, removing, renaming and linking names, permissions and times.

use super::args::{AtFlags, Timespec};
use super::SysResult;
use crate::fs::fd::{self, Fd};
use crate::fs::hostops;
use crate::fs::inode::{Inode, Kind};
use crate::fs::p9client::SetAttr;
use crate::fs::path;
use crate::fs::tree;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::process::process;
use crate::sched::clock;
use alloc::vec::Vec;
use gometal_core::boot::cpio::{S_IFDIR, S_IFMT, S_IFREG};
use crate::fs::inode::S_IFIFO;
use gometal_core::linux::errno::*;

const RENAME_NOREPLACE: u32 = 1;
const UMASK: u32 = 0o022;

pub fn getcwd(user: &mut UserSpace, buf: UserPtr<u8>, size: usize) -> SysResult {
    let mut cwd = tree::path_of(&path::cwd())?;
    cwd.push(0);
    if cwd.len() > size {
        return Err(ERANGE);
    }
    user.write_bytes(buf.slice(size), &cwd)?;
    Ok(cwd.len())
}

pub fn chdir(user: &mut UserSpace, pathname: UserPtr<u8>) -> SysResult {
    let found = path::lookup(user, Fd::CWD, pathname, true)?;
    if !found.node.is_dir() {
        return Err(ENOTDIR);
    }
    *process().fs.cwd.lock() = found.node;
    Ok(0)
}

pub fn fchdir(_: &mut UserSpace, fd: Fd) -> SysResult {
    let file = fd::file(fd)?;
    *process().fs.cwd.lock() = file.directory().ok_or(ENOTDIR)?.clone();
    Ok(0)
}

fn dirent_type(node: &Inode) -> u8 {
    match node.file_type() {
        0o040000 => 4,  // DT_DIR
        0o120000 => 10, // DT_LNK
        0o020000 => 2,  // DT_CHR
        _ => 8,         // DT_REG
    }
}

/// Most bytes one getdents64 call returns (Go asks for 8 KiB): bounds the
/// kernel buffer whatever size the program passes.
const MAX_DENTS_BYTES: usize = 64 * 1024;

/// getdents64: ".", ".." and the entries in name order; the file offset
/// counts entries already returned. Each call walks the directory from that
/// offset and builds only what fits in the buffer, so a huge directory
/// costs no more heap than one bufferful.
pub fn getdents64(user: &mut UserSpace, fd: Fd, buf: UserPtr<u8>, size: usize) -> SysResult {
    let file = fd::file(fd)?;
    let node = file.directory().ok_or(ENOTDIR)?;
    let size = size.min(MAX_DENTS_BYTES);
    // As Linux's filldir64, which checks each record as it writes it: the
    // records go as far as the buffer is the program's and mapped; at the
    // end of the directory nothing is written or checked.
    let room = user.accessible_prefix(buf.slice(size), true)?;
    let mut out = Dents { bytes: Vec::new(), room, index: 0, full: 0 };
    out.bytes.try_reserve_exact(room).map_err(|_| ENOMEM)?;
    if *file.offset.lock() == 0 {
        // A share's directory: read the host's listing again (Linux's
        // v9fs lists the host directory at each opendir/rewind), before
        // the offset's spin lock is taken (the host's answer is slept on).
        crate::fs::sharedir::refresh(node)?;
        crate::fs::synth::refresh(node); // /proc/<pid>/fd and the like
    }
    let mut offset = file.offset.lock();
    out.index = *offset as usize;
    if out.index == 0 {
        out.push(b".", node);
    }
    if out.index == 1 && out.full == 0 {
        out.push(b"..", &tree::parent_dir(node));
    }
    if out.index >= 2 && out.full == 0 {
        tree::visit_from(node, out.index - 2, |name, n| out.push(name, n));
    }
    match out.full {
        n if n > 0 && out.bytes.is_empty() && n <= size => return Err(EFAULT), // it fits, but not there
        n if n > 0 && out.bytes.is_empty() => return Err(EINVAL),              // buffer too small for one entry
        _ => {}
    }
    user.write_bytes(buf.slice(out.bytes.len()), &out.bytes)?;
    *offset = out.index as u64;
    Ok(out.bytes.len())
}

/// getdents64's output: struct linux_dirent64 records up to `room` bytes.
struct Dents {
    bytes: Vec<u8>,
    room: usize,
    /// The index of the next entry ("." is 0, ".." 1).
    index: usize,
    /// The length of the record that did not fit (0: all did).
    full: usize,
}

impl Dents {
    /// Appends one record; false (and `full`) if it does not fit.
    fn push(&mut self, name: &[u8], n: &Inode) -> bool {
        let reclen = (19 + name.len() + 1).div_ceil(8) * 8;
        if self.bytes.len() + reclen > self.room {
            self.full = reclen;
            return false;
        }
        let out = &mut self.bytes;
        out.extend_from_slice(&n.ino.to_le_bytes());
        out.extend_from_slice(&((self.index + 1) as i64).to_le_bytes());
        out.extend_from_slice(&(reclen as u16).to_le_bytes());
        out.push(dirent_type(n));
        out.extend_from_slice(name);
        out.resize(out.len() + reclen - 19 - name.len(), 0);
        self.index += 1;
        true
    }
}

pub fn mkdirat(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, mode: u32) -> SysResult {
    let (dir, name, _) = path::lookup_parent(user, dirfd, pathname)?;
    if name == b"." || name == b".." {
        return Err(EEXIST);
    }
    let node = Inode::new_dir(mode & !UMASK, clock::realtime_ns());
    tree::link(&dir.node, &name, node)?;
    Ok(0)
}

pub fn mknodat(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, mode: u32) -> SysResult {
    let (dir, name, trailing) = path::lookup_parent(user, dirfd, pathname)?;
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

pub fn unlinkat(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, flags: AtFlags) -> SysResult {
    if !(flags - AtFlags::REMOVEDIR).is_empty() {
        return Err(EINVAL);
    }
    let rmdir = flags.contains(AtFlags::REMOVEDIR);
    let (dir, name, trailing) = path::lookup_parent(user, dirfd, pathname)?;
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

pub fn renameat2(user: &mut UserSpace, olddir: Fd, oldpath: UserPtr<u8>, newdir: Fd, newpath: UserPtr<u8>, flags: u32) -> SysResult {
    if flags & !RENAME_NOREPLACE != 0 {
        return Err(EINVAL); // RENAME_EXCHANGE and RENAME_WHITEOUT are not supported
    }
    let (from_dir, from_name, from_slash) = path::lookup_parent(user, olddir, oldpath)?;
    let (to_dir, to_name, to_slash) = path::lookup_parent(user, newdir, newpath)?;
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

pub fn linkat(user: &mut UserSpace, olddir: Fd, oldpath: UserPtr<u8>, newdir: Fd, newpath: UserPtr<u8>, flags: AtFlags) -> SysResult {
    let follow = flags.contains(AtFlags::SYMLINK_FOLLOW);
    let target = path::lookup(user, olddir, oldpath, follow)?;
    if target.node.is_dir() {
        return Err(EPERM);
    }
    let (dir, name, trailing) = path::lookup_parent(user, newdir, newpath)?;
    if name == b"." || name == b".." {
        return Err(EEXIST);
    }
    if trailing {
        return Err(ENOENT);
    }
    crate::fs::readonly::check_move(&target.node, &dir.node)?;
    tree::link(&dir.node, &name, target.node.clone())?;
    if target.node.host().is_none() {
        target.node.meta.lock().nlink += 1; // a share's count is the host's (read back)
    }
    Ok(0)
}

pub fn symlinkat(user: &mut UserSpace, target: UserPtr<u8>, newdir: Fd, linkpath: UserPtr<u8>) -> SysResult {
    let target = path::read(user, target)?;
    let (dir, name, trailing) = path::lookup_parent(user, newdir, linkpath)?;
    if tree::child(&dir.node, &name).is_some() || name == b"." || name == b".." {
        return Err(EEXIST);
    }
    if trailing {
        return Err(ENOENT);
    }
    tree::link(&dir.node, &name, Inode::new_symlink(target, clock::realtime_ns()))?;
    Ok(0)
}

pub fn readlinkat(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, buf: UserPtr<u8>, size: usize) -> SysResult {
    let found = path::lookup(user, dirfd, pathname, false)?;
    let Kind::Symlink(target) = &found.node.kind else { return Err(EINVAL) };
    let n = target.len().min(size);
    user.write_bytes(buf.slice(n), &target[..n])?;
    Ok(n)
}

const W_OK: u64 = 2;

/// Everything is permitted to root, which the program is; only existence
/// is checked, and W_OK on a read-only mount (EROFS, as Linux).
pub fn faccessat(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, mode: u64) -> SysResult {
    if mode & !7 != 0 {
        return Err(EINVAL);
    }
    let found = path::lookup(user, dirfd, pathname, true)?;
    if mode & W_OK != 0 {
        crate::fs::readonly::check(&found.node)?;
    }
    Ok(0)
}

/// The node a path-or-descriptor call is about.
fn target(user: &mut UserSpace, dirfd: Fd, ptr: UserPtr<u8>, flags: AtFlags) -> Result<alloc::sync::Arc<Inode>, Errno> {
    if ptr.is_null() || (flags.contains(AtFlags::EMPTY_PATH) && path::is_empty(user, ptr)) {
        return node_of_fd(dirfd);
    }
    Ok(path::lookup(user, dirfd, ptr, !flags.contains(AtFlags::SYMLINK_NOFOLLOW))?.node)
}

fn node_of_fd(fd: Fd) -> Result<alloc::sync::Arc<Inode>, Errno> {
    fd::file(fd)?.inode().cloned().ok_or(EINVAL)
}

fn set_mode(node: &Inode, mode: u32) -> SysResult {
    crate::fs::readonly::check(node)?;
    let set = SetAttr { mode, ..Default::default() };
    if hostops::setattr(node, hostops::MODE, &set)? {
        return Ok(0);
    }
    let mut m = node.meta.lock();
    m.mode = (m.mode & S_IFMT) | (mode & 0o7777);
    m.ctime_ns = clock::realtime_ns();
    Ok(0)
}

pub fn fchmod(_: &mut UserSpace, fd: Fd, mode: u32) -> SysResult {
    set_mode(&*node_of_fd(fd)?, mode)
}

pub fn fchmodat(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, mode: u32) -> SysResult {
    set_mode(&*target(user, dirfd, pathname, AtFlags::empty())?, mode)
}

/// fchmodat2 (Linux 6.6): fchmodat with flags. Symlinks have no mode of
/// their own, so AT_SYMLINK_NOFOLLOW on one is EOPNOTSUPP, as on Linux.
pub fn fchmodat2(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, mode: u32, flags: AtFlags) -> SysResult {
    if !(flags - (AtFlags::SYMLINK_NOFOLLOW | AtFlags::EMPTY_PATH)).is_empty() {
        return Err(EINVAL);
    }
    let node = target(user, dirfd, pathname, flags)?;
    if matches!(node.kind, Kind::Symlink(_)) {
        return Err(EOPNOTSUPP);
    }
    set_mode(&node, mode)
}

/// A uid or gid of -1 leaves that owner as it is.
fn set_owner(node: &Inode, uid: u32, gid: u32) -> SysResult {
    crate::fs::readonly::check(node)?;
    let valid = if uid != u32::MAX { hostops::UID } else { 0 } | if gid != u32::MAX { hostops::GID } else { 0 };
    if node.host().is_some() {
        hostops::setattr(node, valid, &SetAttr { uid, gid, ..Default::default() })?;
        return Ok(0);
    }
    let mut m = node.meta.lock();
    if uid != u32::MAX {
        m.uid = uid;
    }
    if gid != u32::MAX {
        m.gid = gid;
    }
    Ok(0)
}

pub fn fchown(_: &mut UserSpace, fd: Fd, uid: u32, gid: u32) -> SysResult {
    set_owner(&*node_of_fd(fd)?, uid, gid)
}

pub fn fchownat(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, uid: u32, gid: u32, flags: AtFlags) -> SysResult {
    set_owner(&*target(user, dirfd, pathname, flags)?, uid, gid)
}

const UTIME_NOW: i64 = (1 << 30) - 1;
const UTIME_OMIT: i64 = (1 << 30) - 2;

pub fn utimensat(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, times: UserPtr<Timespec>, flags: AtFlags) -> SysResult {
    let node = target(user, dirfd, pathname, flags)?;
    let now = clock::realtime_ns() as i64;
    let times = if times.is_null() {
        [Timespec { sec: 0, nsec: UTIME_NOW }; 2]
    } else {
        [user.read(times)?, user.read(times.at(1))?]
    };
    let pick = |Timespec { sec, nsec }: Timespec| -> Result<Option<u64>, Errno> {
        match nsec {
            UTIME_OMIT => Ok(None),
            UTIME_NOW => Ok(Some(now as u64)),
            // Before 1970 counts as 1970; past u64 nanoseconds (the year
            // 2554) saturates instead of wrapping (the fuzzer's huge tv_sec
            // overflowed the checked kernel here).
            n => gometal_core::linux::timespec::timespec_to_ns(sec.max(0), n).map(Some).ok_or(EINVAL),
        }
    };
    let (atime, mtime) = (pick(times[0])?, pick(times[1])?);
    crate::fs::readonly::check(&node)?;
    if node.host().is_some() {
        // The host sets the change time itself.
        let set = SetAttr { atime_ns: atime.unwrap_or(0), mtime_ns: mtime.unwrap_or(0), ..Default::default() };
        let a = atime.map_or(0, |_| hostops::ATIME | hostops::ATIME_SET);
        let m = mtime.map_or(0, |_| hostops::MTIME | hostops::MTIME_SET);
        hostops::setattr(&node, a | m, &set)?;
        return Ok(0);
    }
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
