//! fstat, newfstatat and statx: file metadata in the layouts riscv64 uses
//! (asm-generic `struct stat`, 128 bytes; `struct statx`, 256 bytes).

use super::args::AtFlags;
use super::SysResult;
use crate::fs::fd::{self, Fd, FileKind, OpenFile};
use crate::fs::inode::{Device, Inode, Kind, S_IFCHR};
use crate::fs::path;
use crate::mm::uaccess::{UserPtr, UserSpace};
use gometal_core::errno::{Errno, EINVAL};

const S_IFIFO: u32 = 0o010000;

/// The facts both layouts are filled from.
#[derive(Default)]
struct Meta {
    ino: u64,
    mode: u32,
    nlink: u32,
    uid: u32,
    gid: u32,
    size: u64,
    blocks: u64,
    rdev: (u32, u32),
    atime_ns: u64,
    mtime_ns: u64,
    ctime_ns: u64,
}

/// `n`'s metadata; for a share's node, the host's attributes as they are
/// now, read again unless `fresh` (the path walk just read them); if the
/// host does not answer, the last ones seen.
fn of_inode(n: &Inode, fresh: bool) -> Meta {
    if !fresh {
        let _ = crate::fs::hostops::refresh_attrs(n);
    }
    let host_file = n.host().filter(|_| matches!(n.kind, Kind::File(_))).map(|h| h.data.lock().size);
    let m = n.meta.lock();
    let (size, blocks) = match &n.kind {
        Kind::File(_) if host_file.is_some() => {
            let size = host_file.unwrap_or(0);
            (size, size.div_ceil(512))
        }
        Kind::File(d) => {
            let d = d.lock();
            (d.size, d.blocks())
        }
        Kind::Symlink(t) => (t.len() as u64, 0),
        Kind::Dir(_) => (4096, 8),
        Kind::Device(_) | Kind::Fifo(_) | Kind::Socket(_) => (0, 0),
    };
    let rdev = if let Kind::Device(d) = &n.kind { d.rdev() } else { (0, 0) };
    Meta {
        ino: n.ino,
        mode: m.mode,
        nlink: m.nlink,
        uid: m.uid,
        gid: m.gid,
        size,
        blocks,
        rdev,
        atime_ns: m.atime_ns,
        mtime_ns: m.mtime_ns,
        ctime_ns: m.ctime_ns,
    }
}

fn of_file(file: &OpenFile) -> Meta {
    match &file.kind {
        FileKind::File(n) | FileKind::Directory(n) => of_inode(n, false),
        FileKind::Device(d) => {
            if let Device::Stdio(n) = d {
                // A stream whose host side is no terminal reads like a pipe.
                if !crate::stdio::is_tty(crate::stdio::Stream::from_fd(*n as usize)) {
                    return Meta { mode: S_IFIFO | 0o600, nlink: 1, ..Meta::default() };
                }
            }
            let perm = if matches!(d, Device::Console | Device::Stdio(_)) { 0o620 } else { 0o666 };
            Meta { mode: S_IFCHR | perm, nlink: 1, rdev: d.rdev(), ..Meta::default() }
        }
        FileKind::Pipe(_) => Meta { mode: S_IFIFO | 0o600, nlink: 1, ..Meta::default() },
        FileKind::Socket(_) => Meta { mode: 0o140777, nlink: 1, ..Meta::default() }, // S_IFSOCK
        FileKind::EventFd(_) | FileKind::Epoll(_) => Meta { mode: 0o600, nlink: 1, ..Meta::default() },
        // /dev/uioN a character device; its sysfs files regular, as on Linux.
        FileKind::Uio(u) => match u.node {
            crate::fs::inode::UioNode::Dev => Meta { mode: S_IFCHR | 0o600, nlink: 1, rdev: (243, u.dev.index as u32), ..Meta::default() },
            _ => Meta { mode: gometal_core::cpio::S_IFREG | 0o644, nlink: 1, size: 4096, ..Meta::default() },
        },
    }
}

fn of_path(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, flags: AtFlags) -> Result<Meta, Errno> {
    if flags.contains(AtFlags::EMPTY_PATH) && path::is_empty(user, pathname) {
        return Ok(of_file(&*fd::file(dirfd)?));
    }
    let found = path::lookup(user, dirfd, pathname, !flags.contains(AtFlags::SYMLINK_NOFOLLOW))?;
    Ok(of_inode(&found.node, found.fresh))
}

fn put(buf: &mut [u8], at: usize, bytes: &[u8]) {
    buf[at..at + bytes.len()].copy_from_slice(bytes);
}

fn split_ns(ns: u64) -> (u64, u64) {
    (ns / 1_000_000_000, ns % 1_000_000_000)
}

fn stat_bytes(m: &Meta) -> [u8; 128] {
    let mut b = [0u8; 128];
    put(&mut b, 0, &1u64.to_le_bytes()); // st_dev
    put(&mut b, 8, &m.ino.to_le_bytes());
    put(&mut b, 16, &m.mode.to_le_bytes());
    put(&mut b, 20, &m.nlink.to_le_bytes());
    put(&mut b, 24, &m.uid.to_le_bytes());
    put(&mut b, 28, &m.gid.to_le_bytes());
    put(&mut b, 32, &(((m.rdev.0 as u64) << 8) | m.rdev.1 as u64).to_le_bytes());
    put(&mut b, 48, &m.size.to_le_bytes());
    put(&mut b, 56, &4096u32.to_le_bytes()); // st_blksize
    put(&mut b, 64, &m.blocks.to_le_bytes());
    for (at, ns) in [(72, m.atime_ns), (88, m.mtime_ns), (104, m.ctime_ns)] {
        let (s, n) = split_ns(ns);
        put(&mut b, at, &s.to_le_bytes());
        put(&mut b, at + 8, &n.to_le_bytes());
    }
    b
}

/// struct stat, laid out by `stat_bytes`.
type Stat = [u8; 128];
/// struct statx, laid out in `statx`.
type Statx = [u8; 256];

pub fn fstat(user: &mut UserSpace, fd: Fd, out: UserPtr<Stat>) -> SysResult {
    let m = of_file(&*fd::file(fd)?);
    user.write(out, &stat_bytes(&m))?;
    Ok(0)
}

pub fn newfstatat(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, out: UserPtr<Stat>, flags: AtFlags) -> SysResult {
    let m = of_path(user, dirfd, pathname, flags)?;
    user.write(out, &stat_bytes(&m))?;
    Ok(0)
}

const STATX_BASIC_STATS: u32 = 0x7ff;

/// statx(dirfd, path, flags, mask, buf): every basic field is filled
/// whatever `mask` asks for, as Linux may.
pub fn statx(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, flags: AtFlags, _mask: u32, out: UserPtr<Statx>) -> SysResult {
    let known = AtFlags::EMPTY_PATH | AtFlags::SYMLINK_NOFOLLOW | AtFlags::STATX_SYNC | AtFlags::NO_AUTOMOUNT;
    if !(flags - known).is_empty() {
        return Err(EINVAL);
    }
    let m = of_path(user, dirfd, pathname, flags)?;
    let mut b = [0u8; 256];
    put(&mut b, 0, &STATX_BASIC_STATS.to_le_bytes());
    put(&mut b, 4, &4096u32.to_le_bytes());
    put(&mut b, 16, &m.nlink.to_le_bytes());
    put(&mut b, 20, &m.uid.to_le_bytes());
    put(&mut b, 24, &m.gid.to_le_bytes());
    put(&mut b, 28, &(m.mode as u16).to_le_bytes());
    put(&mut b, 32, &m.ino.to_le_bytes());
    put(&mut b, 40, &m.size.to_le_bytes());
    put(&mut b, 48, &m.blocks.to_le_bytes());
    for (at, ns) in [(64, m.atime_ns), (96, m.ctime_ns), (112, m.mtime_ns)] {
        let (s, n) = split_ns(ns);
        put(&mut b, at, &s.to_le_bytes());
        put(&mut b, at + 8, &(n as u32).to_le_bytes());
    }
    put(&mut b, 128, &m.rdev.0.to_le_bytes());
    put(&mut b, 132, &m.rdev.1.to_le_bytes());
    user.write(out, &b)?;
    Ok(0)
}
