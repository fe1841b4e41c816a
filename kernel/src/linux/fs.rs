//! File system calls: open, close, seek, fcntl, ioctl, dup, pipes,
//! truncate (reading and writing are in io.rs). Files live in the in-memory tree (fs/tree.rs); the console and
//! /dev files are device nodes.

use super::args::OpenFlags;
use super::SysResult;
use crate::fs::fd::{self, Fd, OpenFile, O_ACCMODE, O_APPEND, O_NONBLOCK, O_PATH, O_RDONLY};
use crate::fs::inode::{Inode, Kind};
use crate::fs::open::{open_node, OpenHow};
use crate::fs::path;
use crate::fs::pipe::Pipe;
use crate::fs::regular::truncate_node;
use crate::fs::tree;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::process::process;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use gometal_core::linux::errno::*;

const UMASK: u32 = 0o022;

pub fn openat(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, flags: OpenFlags, mode: u32) -> SysResult {
    if flags.contains(OpenFlags::TMPFILE) {
        return Err(EOPNOTSUPP);
    }
    let raw = path::read(user, pathname)?;
    let start = path::start_for(dirfd, &raw)?;
    let follow = !flags.contains(OpenFlags::NOFOLLOW);
    let (create, exclusive) = (flags.contains(OpenFlags::CREAT), flags.contains(OpenFlags::EXCL));
    let found = match tree::walk(&start, &raw, follow) {
        Ok(_) if create && exclusive => return Err(EEXIST),
        Ok(f) => f,
        Err(ENOENT) if create => create_file(&start, &raw, mode, !exclusive && follow)?,
        Err(e) => return Err(e),
    };
    let how = OpenHow {
        access: flags.bits() & O_ACCMODE,
        status: flags.bits() & (O_ACCMODE | O_NONBLOCK | O_APPEND | O_PATH),
        create,
        truncate: flags.contains(OpenFlags::TRUNC),
        directory: flags.contains(OpenFlags::DIRECTORY),
        path_only: flags.contains(OpenFlags::PATH),
        nonblock: flags.contains(OpenFlags::NONBLOCK),
    };
    let file = OpenFile::new(open_node(user, &found.node, &how)?, how.status);
    file.path.call_once(|| found.path);
    process().fs.files.lock().install(file, flags.contains(OpenFlags::CLOEXEC), 0)
}

/// Creates the regular file `raw` names. If that name is a dangling symlink
/// and `follow`, the file is created where the link points, as Linux does.
fn create_file(start: &Arc<Inode>, raw: &[u8], mode: u32, follow: bool) -> Result<tree::Found, Errno> {
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
    Ok(tree::Found { path: [dir.path.as_slice(), b"/", &name].concat(), node, fresh: true })
}

pub fn close(_: &mut UserSpace, fd: Fd) -> SysResult {
    let file = process().fs.files.lock().close(fd.index())?;
    super::locks::closed(&file);
    drop(file); // after the table lock: closing a pipe end wakes waiters
    Ok(0)
}

pub fn lseek(_: &mut UserSpace, fd: Fd, offset: i64, whence: u32) -> SysResult {
    let file = fd::file(fd)?;
    Ok(file.seek(&file, offset, whence)? as usize)
}

const F_DUPFD: u32 = 0;
const F_GETFD: u32 = 1;
const F_SETFD: u32 = 2;
const F_GETFL: u32 = 3;
const F_SETFL: u32 = 4;
const F_DUPFD_CLOEXEC: u32 = 1030;
const F_GETPIPE_SZ: u32 = 1032;
const FD_CLOEXEC: u64 = 1;

/// fcntl(fd, cmd, arg): `arg` is an int or a flag word depending on `cmd`.
pub fn fcntl(user: &mut UserSpace, fd: Fd, cmd: u32, arg: u64) -> SysResult {
    if let Some(result) = super::locks::fcntl(user, fd, cmd, arg) {
        return result;
    }
    let fd = fd.index();
    let mut files = process().fs.files.lock();
    let file = files.get(fd)?;
    match cmd {
        F_DUPFD | F_DUPFD_CLOEXEC => files.install(file, cmd == F_DUPFD_CLOEXEC, arg as usize),
        F_GETFD => Ok(if files.cloexec(fd)? { FD_CLOEXEC as usize } else { 0 }),
        F_SETFD => files.set_cloexec(fd, arg & FD_CLOEXEC != 0).map(|_| 0),
        F_GETFL => Ok(file.status.load(Ordering::Relaxed) as usize),
        F_SETFL => {
            let keep = file.status.load(Ordering::Relaxed) & O_ACCMODE;
            let settable = (arg as u32) & (O_NONBLOCK | O_APPEND);
            file.status.store(keep | settable, Ordering::Relaxed);
            Ok(0)
        }
        F_GETPIPE_SZ if file.downcast::<Pipe>().is_some() => Ok(crate::fs::pipe::CAPACITY),
        _ => Err(EINVAL),
    }
}

const FIONBIO: u32 = 0x5421;
const FIOCLEX: u32 = 0x5451;
const FIONCLEX: u32 = 0x5450;

/// ioctl(fd, request, argp): `argp` points at an int for FIONBIO.
pub fn ioctl(user: &mut UserSpace, fd: Fd, request: u32, argp: UserPtr<i32>) -> SysResult {
    let file = fd::file(fd)?;
    match request {
        FIONBIO => {
            let on = user.read(argp)? != 0;
            let status = file.status.load(Ordering::Relaxed);
            let new = if on { status | O_NONBLOCK } else { status & !O_NONBLOCK };
            file.status.store(new, Ordering::Relaxed);
            Ok(0)
        }
        FIOCLEX | FIONCLEX => process().fs.files.lock().set_cloexec(fd.index(), request == FIOCLEX).map(|_| 0),
        // The kind's own: a terminal's (isatty), a socket's FIONREAD.
        request => file.ioctl(user, request, argp.addr()),
    }
}

pub fn dup(_: &mut UserSpace, fd: Fd) -> SysResult {
    let mut files = process().fs.files.lock();
    let file = files.get(fd.index())?;
    files.install(file, false, 0)
}

pub fn dup3(_: &mut UserSpace, old: Fd, new: Fd, flags: OpenFlags) -> SysResult {
    if old == new {
        return Err(EINVAL);
    }
    if !(flags - OpenFlags::CLOEXEC).is_empty() {
        return Err(EINVAL);
    }
    let mut files = process().fs.files.lock();
    let file = files.get(old.index())?;
    let replaced = files.install_at(new.index(), file, flags.contains(OpenFlags::CLOEXEC))?;
    drop(files);
    if let Some(old) = &replaced {
        super::locks::closed(old);
    }
    drop(replaced);
    Ok(new.index())
}

pub fn pipe2(user: &mut UserSpace, fds: UserPtr<[i32; 2]>, flags: OpenFlags) -> SysResult {
    if !(flags - (OpenFlags::CLOEXEC | OpenFlags::NONBLOCK)).is_empty() {
        return Err(EINVAL);
    }
    let pipe = Arc::new(Pipe::new().ok_or(ENFILE)?);
    let nonblock = flags.bits() & O_NONBLOCK;
    let r = OpenFile::new(pipe.clone(), O_RDONLY | nonblock);
    let w = OpenFile::new(pipe, fd::O_WRONLY | nonblock);
    let cloexec = flags.contains(OpenFlags::CLOEXEC);
    let (rfd, wfd) = {
        let mut files = process().fs.files.lock();
        let rfd = files.install(r, cloexec, 0)?;
        match files.install(w, cloexec, 0) {
            Ok(wfd) => (rfd, wfd),
            Err(e) => {
                let _ = files.close(rfd);
                return Err(e);
            }
        }
    };
    if let Err(e) = user.write(fds, &[rfd as i32, wfd as i32]) {
        let mut files = process().fs.files.lock();
        let _ = files.close(rfd);
        let _ = files.close(wfd);
        return Err(e);
    }
    Ok(0)
}

pub fn ftruncate(_: &mut UserSpace, fd: Fd, len: i64) -> SysResult {
    let file = fd::file(fd)?;
    file.truncate(&file, len).map(|_| 0)
}

pub fn truncate(user: &mut UserSpace, pathname: UserPtr<u8>, len: i64) -> SysResult {
    let found = path::lookup(user, Fd::CWD, pathname, true)?;
    crate::fs::readonly::check(&found.node)?;
    truncate_node(&found.node, len).map(|_| 0)
}
