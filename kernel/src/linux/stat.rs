//! fstat, newfstatat and statx: file metadata in the layouts riscv64 uses
//! (asm-generic `struct stat`, 128 bytes; `struct statx`, 256 bytes). The
//! facts come from the file (`File::stat`) or the node a path names
//! (fs/stat.rs).

use super::args::AtFlags;
use super::SysResult;
use crate::fs::fd::{self, Fd};
use crate::fs::path;
use crate::fs::stat::Stat;
use crate::mm::uaccess::{UserPtr, UserSpace};
use gometal_core::linux::errno::{Errno, EINVAL};

fn of_path(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, flags: AtFlags) -> Result<Stat, Errno> {
    if flags.contains(AtFlags::EMPTY_PATH) && path::is_empty(user, pathname) {
        return Ok(fd::file(dirfd)?.stat());
    }
    let found = path::lookup(user, dirfd, pathname, !flags.contains(AtFlags::SYMLINK_NOFOLLOW))?;
    Ok(Stat::of_inode(&found.node, found.fresh))
}

fn put(buf: &mut [u8], at: usize, bytes: &[u8]) {
    buf[at..at + bytes.len()].copy_from_slice(bytes);
}

fn split_ns(ns: u64) -> (u64, u64) {
    (ns / 1_000_000_000, ns % 1_000_000_000)
}

fn stat_bytes(m: &Stat) -> [u8; 128] {
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
type StatBuf = [u8; 128];
/// struct statx, laid out in `statx`.
type StatxBuf = [u8; 256];

pub fn fstat(user: &mut UserSpace, fd: Fd, out: UserPtr<StatBuf>) -> SysResult {
    let m = fd::file(fd)?.stat();
    user.write(out, &stat_bytes(&m))?;
    Ok(0)
}

pub fn newfstatat(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, out: UserPtr<StatBuf>, flags: AtFlags) -> SysResult {
    let m = of_path(user, dirfd, pathname, flags)?;
    user.write(out, &stat_bytes(&m))?;
    Ok(0)
}

const STATX_BASIC_STATS: u32 = 0x7ff;

/// statx(dirfd, path, flags, mask, buf): every basic field is filled
/// whatever `mask` asks for, as Linux may.
pub fn statx(user: &mut UserSpace, dirfd: Fd, pathname: UserPtr<u8>, flags: AtFlags, _mask: u32, out: UserPtr<StatxBuf>) -> SysResult {
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
