//! File system calls: open, close, seek, fcntl, ioctl, dup, pipes,
//! truncate (reading and writing are in io.rs). Files live in the in-memory tree (fs/tree.rs); the console and
//! /dev files are device nodes.

use super::{Args, SysResult};
use crate::fs::fd::{self, FileKind, OpenFile, O_ACCMODE, O_APPEND, O_NONBLOCK, O_PATH, O_RDONLY};
use crate::fs::inode::{Device, Inode, Kind};
use crate::fs::path;
use crate::fs::pipe::Pipe;
use crate::fs::tree;
use crate::mm::uaccess;
use crate::process::process;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use gometal_core::errno::*;

const O_CREAT: u32 = 0o100;
const O_EXCL: u32 = 0o200;
const O_TRUNC: u32 = 0o1000;
const O_DIRECTORY: u32 = 0o200000;
const O_NOFOLLOW: u32 = 0o400000;
const O_CLOEXEC: u32 = 0o2000000;
const O_TMPFILE: u32 = 0o20000000 | O_DIRECTORY;
const UMASK: u32 = 0o022;

pub fn openat(a: &Args) -> SysResult {
    let (flags, mode) = (a[2] as u32, a[3] as u32);
    if flags & O_TMPFILE == O_TMPFILE {
        return Err(EOPNOTSUPP);
    }
    let raw = path::read(a[1])?;
    let start = path::start_for(a[0], &raw)?;
    let follow = flags & O_NOFOLLOW == 0;
    let found = match tree::walk(&start, &raw, follow) {
        Ok(_) if flags & (O_CREAT | O_EXCL) == O_CREAT | O_EXCL => return Err(EEXIST),
        Ok(f) => f,
        Err(ENOENT) if flags & O_CREAT != 0 => create_file(&start, &raw, mode, flags & O_EXCL == 0 && follow)?,
        Err(e) => return Err(e),
    };
    let node = found.node;
    let access = flags & O_ACCMODE;
    let status = flags & (O_ACCMODE | O_NONBLOCK | O_APPEND | O_PATH);
    let kind = match &node.kind {
        _ if flags & O_PATH != 0 => {
            if node.is_dir() { FileKind::Directory(node.clone()) } else { FileKind::File(node.clone()) }
        }
        Kind::Symlink(_) => return Err(ELOOP), // O_NOFOLLOW on a symlink
        Kind::Dir(_) if access != O_RDONLY || flags & O_CREAT != 0 => return Err(EISDIR),
        Kind::Dir(_) => FileKind::Directory(node.clone()),
        _ if flags & O_DIRECTORY != 0 => return Err(ENOTDIR),
        Kind::Device(d) => FileKind::Device(*d),
        Kind::Fifo(pipe) => {
            let (r, w) = (access != fd::O_WRONLY, access != O_RDONLY);
            pipe.open_end(r, w, flags & O_NONBLOCK != 0)?;
            FileKind::Pipe(pipe.clone())
        }
        Kind::File(data) => {
            if flags & O_TRUNC != 0 && access != O_RDONLY {
                data.lock().truncate(0)?;
                node.touch();
            }
            FileKind::File(node.clone())
        }
    };
    let file = OpenFile::new(kind, status);
    let fd = process().files.lock().install(file, flags & O_CLOEXEC != 0, 0)?;
    Ok(fd as isize)
}

/// Creates the regular file `raw` names. If that name is a dangling symlink
/// and `follow`, the file is created where the link points, as Linux does.
fn create_file(start: &Arc<Inode>, raw: &[u8], mode: u32, follow: bool) -> Result<tree::Found, isize> {
    let (mut dir, mut name, trailing) = tree::parent_of(start, raw)?;
    if trailing || name == b"." || name == b".." {
        return Err(EISDIR);
    }
    for _ in 0..40 {
        let Some(existing) = tree::child(&dir.node, &name) else { break };
        let Kind::Symlink(target) = &existing.kind else { return Err(EEXIST) };
        if !follow {
            return Err(EEXIST);
        }
        let (d, n, slash) = tree::parent_of(&dir.node, target)?;
        if slash {
            return Err(EISDIR);
        }
        (dir, name) = (d, n);
    }
    let node = Inode::new_file(mode & !UMASK, &[], crate::sched::clock::realtime_ns());
    tree::link(&dir.node, &name, node.clone())?;
    Ok(tree::Found { path: [dir.path.as_slice(), b"/", &name].concat(), node })
}

pub fn close(a: &Args) -> SysResult {
    let file = process().files.lock().close(a[0] as usize)?;
    drop(file); // after the table lock: closing a pipe end wakes waiters
    Ok(0)
}

pub fn lseek(a: &Args) -> SysResult {
    let file = fd::file(a[0])?;
    let size = match &file.kind {
        FileKind::File(node) => node.size() as i64,
        FileKind::Directory(_) => 0,
        FileKind::Device(d) if !matches!(d, Device::Console | Device::Stdio(_)) => return Ok(0),
        _ => return Err(ESPIPE),
    };
    let mut offset = file.offset.lock();
    let base = match a[2] {
        0 => 0,
        1 => *offset as i64,
        2 => size,
        _ => return Err(EINVAL),
    };
    let new = base.checked_add(a[1] as i64).filter(|&n| n >= 0).ok_or(EINVAL)?;
    *offset = new as u64;
    Ok(new as isize)
}

const F_DUPFD: u64 = 0;
const F_GETFD: u64 = 1;
const F_SETFD: u64 = 2;
const F_GETFL: u64 = 3;
const F_SETFL: u64 = 4;
const F_DUPFD_CLOEXEC: u64 = 1030;
const F_GETPIPE_SZ: u64 = 1032;
const FD_CLOEXEC: u64 = 1;

pub fn fcntl(a: &Args) -> SysResult {
    let fd = a[0] as usize;
    let mut files = process().files.lock();
    let file = files.get(fd)?;
    match a[1] {
        F_DUPFD | F_DUPFD_CLOEXEC => Ok(files.install(file, a[1] == F_DUPFD_CLOEXEC, a[2] as usize)? as isize),
        F_GETFD => Ok(if files.cloexec(fd)? { FD_CLOEXEC as isize } else { 0 }),
        F_SETFD => files.set_cloexec(fd, a[2] & FD_CLOEXEC != 0).map(|_| 0),
        F_GETFL => Ok(file.status.load(Ordering::Relaxed) as isize),
        F_SETFL => {
            let keep = file.status.load(Ordering::Relaxed) & O_ACCMODE;
            let settable = (a[2] as u32) & (O_NONBLOCK | O_APPEND);
            file.status.store(keep | settable, Ordering::Relaxed);
            Ok(0)
        }
        F_GETPIPE_SZ if matches!(file.kind, FileKind::Pipe(_)) => {
            Ok(crate::fs::pipe::CAPACITY as isize)
        }
        _ => Err(EINVAL),
    }
}

const FIONBIO: u64 = 0x5421;
const FIOCLEX: u64 = 0x5451;
const FIONCLEX: u64 = 0x5450;

pub fn ioctl(a: &Args) -> SysResult {
    let file = fd::file(a[0])?;
    match a[1] {
        FIONBIO => {
            let on = uaccess::read_bytes(a[2], 4)?.iter().any(|&b| b != 0);
            let status = file.status.load(Ordering::Relaxed);
            let new = if on { status | O_NONBLOCK } else { status & !O_NONBLOCK };
            file.status.store(new, Ordering::Relaxed);
            Ok(0)
        }
        FIOCLEX | FIONCLEX => process().files.lock().set_cloexec(a[0] as usize, a[1] == FIOCLEX).map(|_| 0),
        // A standard stream whose host side is a terminal answers the
        // terminal requests (isatty); the rest are no terminals.
        request => match &file.kind {
            FileKind::Device(Device::Stdio(n)) if crate::stdio::is_tty(crate::stdio::Stream::from_fd(*n as usize)) => {
                super::tty::ioctl(request, a[2])
            }
            _ => Err(ENOTTY),
        },
    }
}

pub fn dup(a: &Args) -> SysResult {
    let mut files = process().files.lock();
    let file = files.get(a[0] as usize)?;
    Ok(files.install(file, false, 0)? as isize)
}

pub fn dup3(a: &Args) -> SysResult {
    if a[0] == a[1] {
        return Err(EINVAL);
    }
    if a[2] as u32 & !O_CLOEXEC != 0 {
        return Err(EINVAL);
    }
    let mut files = process().files.lock();
    let file = files.get(a[0] as usize)?;
    let old = files.install_at(a[1] as usize, file, a[2] as u32 & O_CLOEXEC != 0)?;
    drop(files);
    drop(old);
    Ok(a[1] as isize)
}

pub fn pipe2(a: &Args) -> SysResult {
    let flags = a[1] as u32;
    if flags & !(O_CLOEXEC | O_NONBLOCK) != 0 {
        return Err(EINVAL);
    }
    let pipe = Arc::new(Pipe::new().ok_or(ENFILE)?);
    let nonblock = flags & O_NONBLOCK;
    let r = OpenFile::new(FileKind::Pipe(pipe.clone()), O_RDONLY | nonblock);
    let w = OpenFile::new(FileKind::Pipe(pipe), fd::O_WRONLY | nonblock);
    let cloexec = flags & O_CLOEXEC != 0;
    let (rfd, wfd) = {
        let mut files = process().files.lock();
        let rfd = files.install(r, cloexec, 0)?;
        match files.install(w, cloexec, 0) {
            Ok(wfd) => (rfd, wfd),
            Err(e) => {
                let _ = files.close(rfd);
                return Err(e);
            }
        }
    };
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&(rfd as i32).to_le_bytes());
    out[4..].copy_from_slice(&(wfd as i32).to_le_bytes());
    if let Err(e) = uaccess::write_bytes(a[0], &out) {
        let mut files = process().files.lock();
        let _ = files.close(rfd);
        let _ = files.close(wfd);
        return Err(e);
    }
    Ok(0)
}

fn truncate_node(node: &Inode, len: i64) -> SysResult {
    if len < 0 {
        return Err(EINVAL);
    }
    match &node.kind {
        Kind::File(data) => {
            data.lock().truncate(len as u64)?;
            node.touch();
            Ok(0)
        }
        Kind::Dir(_) => Err(EISDIR),
        _ => Err(EINVAL),
    }
}

pub fn ftruncate(a: &Args) -> SysResult {
    let file = fd::file(a[0])?;
    match &file.kind {
        FileKind::File(node) if file.writable() => truncate_node(node, a[1] as i64),
        FileKind::File(_) | FileKind::Directory(_) => Err(EINVAL),
        _ => Err(EINVAL),
    }
}

pub fn truncate(a: &Args) -> SysResult {
    let found = path::lookup(path::AT_FDCWD as u64, a[0], true)?;
    truncate_node(&found.node, a[1] as i64)
}

/// Nothing to flush: files live in memory.
pub fn fsync(a: &Args) -> SysResult {
    match fd::file(a[0])?.kind {
        FileKind::File(_) | FileKind::Directory(_) => Ok(0),
        _ => Err(EINVAL),
    }
}
