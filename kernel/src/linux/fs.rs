//! File system calls: read, write, open, close, seek, fcntl, directories.
//! Files come from the read-only initramfs, the console and the device files
//! (/dev/null, /dev/zero, /dev/urandom); see fs/.

use super::{Args, SysResult};
use crate::console;
use crate::fs::fd::{self, Device, FileKind, OpenFile, O_NONBLOCK};
use crate::fs::initramfs::{self, Node};
use crate::fs::path;
use crate::mm::uaccess;
use crate::process::process;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;
use gometal_core::cpio;
use gometal_core::errno::*;

pub const AT_FDCWD: i64 = -100;
const O_ACCMODE: u32 = 3;
const O_CREAT: u32 = 0o100;
const O_TRUNC: u32 = 0o1000;
const O_DIRECTORY: u32 = 0o200000;
const O_CLOEXEC: u32 = 0o2000000;
/// Largest chunk copied through the kernel at once.
const CHUNK: usize = 16 * 1024;

/// The directory a *at call's relative path starts from.
pub fn base_dir(dirfd: u64) -> Result<Vec<u8>, isize> {
    if dirfd as i64 == AT_FDCWD {
        return Ok(path::cwd());
    }
    match &fd::file(dirfd)?.kind {
        FileKind::Directory { path, .. } => Ok(path.clone()),
        _ => Err(ENOTDIR),
    }
}

fn device_at(path: &[u8]) -> Option<Device> {
    match path {
        b"/dev/null" => Some(Device::Null),
        b"/dev/zero" => Some(Device::Zero),
        b"/dev/random" | b"/dev/urandom" => Some(Device::Random),
        _ => None,
    }
}

pub fn openat(a: &Args) -> SysResult {
    let name = uaccess::read_cstr(a[1], 4096)?;
    let flags = a[2] as u32;
    let abs = path::absolute(&base_dir(a[0])?, &name);
    let kind = if let Some(dev) = device_at(&abs) {
        FileKind::Device(dev)
    } else if abs == b"/dev/console" || abs == b"/dev/tty" {
        FileKind::Console
    } else {
        let (abs, node) = path::resolve(b"/", &abs, true)?;
        if flags & (O_CREAT | O_TRUNC) != 0 || flags & O_ACCMODE != 0 {
            return Err(if node.is_dir() { EISDIR } else { EROFS });
        }
        if node.is_dir() {
            FileKind::Directory { path: abs, node }
        } else if flags & O_DIRECTORY != 0 {
            return Err(ENOTDIR);
        } else {
            FileKind::Regular(node)
        }
    };
    let file = OpenFile::new(kind, flags & (O_ACCMODE | O_NONBLOCK | fd::O_APPEND));
    let fd = process().files.lock().install(file, flags & O_CLOEXEC != 0, 0)?;
    Ok(fd as isize)
}

pub fn close(a: &Args) -> SysResult {
    process().files.lock().close(a[0] as usize)?;
    Ok(0)
}

/// Reads from `file` at its offset (or `at`, for pread) into user `buf`.
fn read_file(file: &Arc<OpenFile>, buf: u64, len: usize, at: Option<u64>) -> SysResult {
    match &file.kind {
        FileKind::Console => read_console(file, buf, len),
        FileKind::Device(Device::Null) => Ok(0),
        FileKind::Device(dev) => {
            let n = len.min(CHUNK);
            let mut bytes = alloc::vec![0u8; n];
            if *dev == Device::Random {
                crate::random::fill(&mut bytes);
            }
            uaccess::write_bytes(buf, &bytes)?;
            Ok(n as isize)
        }
        FileKind::Regular(node) => {
            let mut offset = file.offset.lock();
            let pos = at.unwrap_or(*offset) as usize;
            let data = node.data.get(pos.min(node.data.len())..).unwrap_or(&[]);
            let n = data.len().min(len);
            uaccess::write_bytes(buf, &data[..n])?;
            if at.is_none() {
                *offset += n as u64;
            }
            Ok(n as isize)
        }
        FileKind::Directory { .. } => Err(EISDIR),
        FileKind::EventFd(e) => {
            if len < 8 {
                return Err(EINVAL);
            }
            let v = e.read(file.nonblocking())?;
            uaccess::write_u64(buf, v)?;
            Ok(8)
        }
        FileKind::Epoll(_) => Err(EINVAL),
    }
}

fn read_console(file: &OpenFile, buf: u64, len: usize) -> SysResult {
    let mut bytes = alloc::vec![0u8; len.min(CHUNK)];
    let n = if file.nonblocking() {
        console::take_input(&mut bytes).ok_or(EAGAIN)?
    } else {
        console::INPUT_WAITERS
            .wait_until(None, || console::take_input(&mut bytes))
            .map_err(|_| EINTR)?
    };
    uaccess::write_bytes(buf, &bytes[..n])?;
    Ok(n as isize)
}

fn write_file(file: &Arc<OpenFile>, buf: u64, len: usize) -> SysResult {
    match &file.kind {
        FileKind::Console => {
            let mut done = 0;
            while done < len {
                let n = (len - done).min(CHUNK);
                let bytes = uaccess::read_bytes(buf + done as u64, n)?;
                console::write_bytes(&bytes);
                done += n;
            }
            Ok(len as isize)
        }
        FileKind::Device(_) => Ok(len as isize),
        FileKind::EventFd(e) => {
            if len < 8 {
                return Err(EINVAL);
            }
            e.write(uaccess::read_u64(buf)?, file.nonblocking())?;
            Ok(8)
        }
        FileKind::Regular(_) | FileKind::Directory { .. } | FileKind::Epoll(_) => Err(EBADF),
    }
}

pub fn read(a: &Args) -> SysResult {
    read_file(&fd::file(a[0])?, a[1], a[2] as usize, None)
}

pub fn pread64(a: &Args) -> SysResult {
    read_file(&fd::file(a[0])?, a[1], a[2] as usize, Some(a[3]))
}

pub fn write(a: &Args) -> SysResult {
    write_file(&fd::file(a[0])?, a[1], a[2] as usize)
}

/// The (base, len) pairs of an iovec array.
fn iovecs(ptr: u64, count: u64) -> Result<Vec<(u64, usize)>, isize> {
    if count > 1024 {
        return Err(EINVAL);
    }
    let raw = uaccess::read_bytes(ptr, 16 * count as usize)?;
    Ok(raw
        .chunks(16)
        .map(|c| {
            let base = u64::from_le_bytes(c[..8].try_into().unwrap());
            let len = u64::from_le_bytes(c[8..].try_into().unwrap());
            (base, len as usize)
        })
        .collect())
}

pub fn readv(a: &Args) -> SysResult {
    let file = fd::file(a[0])?;
    let mut total = 0;
    for (base, len) in iovecs(a[1], a[2])? {
        let n = read_file(&file, base, len, None)?;
        total += n;
        if (n as usize) < len {
            break;
        }
    }
    Ok(total)
}

pub fn writev(a: &Args) -> SysResult {
    let file = fd::file(a[0])?;
    let mut total = 0;
    for (base, len) in iovecs(a[1], a[2])? {
        total += write_file(&file, base, len)?;
    }
    Ok(total)
}

pub fn lseek(a: &Args) -> SysResult {
    let file = fd::file(a[0])?;
    let size = match &file.kind {
        FileKind::Regular(node) => node.data.len() as i64,
        FileKind::Directory { .. } => 0,
        FileKind::Device(_) => return Ok(0),
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
            let settable = (a[2] as u32) & (O_NONBLOCK | fd::O_APPEND);
            file.status.store(keep | settable, Ordering::Relaxed);
            Ok(0)
        }
        _ => Err(EINVAL),
    }
}

const FIONBIO: u64 = 0x5421;

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
        // The console is a plain serial line, not a terminal with termios.
        _ => Err(ENOTTY),
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
    let mut files = process().files.lock();
    let file = files.get(a[0] as usize)?;
    files.install_at(a[1] as usize, file, a[2] as u32 & O_CLOEXEC != 0)?;
    Ok(a[1] as isize)
}

pub fn getcwd(a: &Args) -> SysResult {
    let mut cwd = path::cwd();
    cwd.push(0);
    if cwd.len() > a[1] as usize {
        return Err(ERANGE);
    }
    uaccess::write_bytes(a[0], &cwd)?;
    Ok(cwd.len() as isize)
}

pub fn chdir(a: &Args) -> SysResult {
    let name = uaccess::read_cstr(a[0], 4096)?;
    let (abs, node) = path::resolve(&path::cwd(), &name, true)?;
    if !node.is_dir() {
        return Err(ENOTDIR);
    }
    *process().cwd.lock() = abs;
    Ok(0)
}

pub fn faccessat(a: &Args) -> SysResult {
    let name = uaccess::read_cstr(a[1], 4096)?;
    let abs = path::absolute(&base_dir(a[0])?, &name);
    if device_at(&abs).is_some() {
        return Ok(0);
    }
    path::resolve(b"/", &abs, true)?;
    const W_OK: u64 = 2;
    if a[2] & W_OK != 0 {
        return Err(EROFS);
    }
    Ok(0)
}

pub fn readlinkat(a: &Args) -> SysResult {
    let name = uaccess::read_cstr(a[1], 4096)?;
    let (_, node) = path::resolve(&base_dir(a[0])?, &name, false)?;
    if !node.is_symlink() {
        return Err(EINVAL);
    }
    let n = node.data.len().min(a[3] as usize);
    uaccess::write_bytes(a[2], &node.data[..n])?;
    Ok(n as isize)
}

pub fn fsync(a: &Args) -> SysResult {
    match fd::file(a[0])?.kind {
        FileKind::Regular(_) | FileKind::Directory { .. } => Ok(0),
        _ => Err(EINVAL),
    }
}

fn dirent_type(node: &Node) -> u8 {
    match node.mode & cpio::S_IFMT {
        cpio::S_IFDIR => 4,
        cpio::S_IFLNK => 10,
        _ => 8,
    }
}

/// getdents64: entries ".", ".." and the directory's children; the file
/// offset counts entries already returned.
pub fn getdents64(a: &Args) -> SysResult {
    let file = fd::file(a[0])?;
    let FileKind::Directory { path: dir, node } = &file.kind else { return Err(ENOTDIR) };
    let parent = initramfs::lookup(&initramfs::parent_of(dir)).unwrap_or(node);
    let mut entries: Vec<(&[u8], &Node)> = alloc::vec![(b".".as_slice(), *node), (b"..".as_slice(), parent)];
    entries.extend(initramfs::children(dir));
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
