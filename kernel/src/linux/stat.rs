//! fstat, newfstatat and statx: file metadata in the layouts riscv64 uses
//! (asm-generic `struct stat`, 128 bytes; `struct statx`, 256 bytes).

use super::fs::base_dir;
use super::{Args, SysResult};
use crate::fs::fd::{self, Device, FileKind, OpenFile};
use crate::fs::path;
use crate::mm::uaccess;
use gometal_core::errno::EINVAL;

const S_IFCHR: u32 = 0o020000;
const S_IFIFO: u32 = 0o010000;
const AT_EMPTY_PATH: u64 = 0x1000;
const AT_SYMLINK_NOFOLLOW: u64 = 0x100;

/// The facts both layouts are filled from.
struct Meta {
    ino: u64,
    mode: u32,
    size: u64,
    rdev: (u32, u32),
    mtime: u64,
}

fn meta_of_file(file: &OpenFile) -> Meta {
    let chr = |minor| Meta { ino: 0, mode: S_IFCHR | 0o666, size: 0, rdev: (1, minor), mtime: 0 };
    match &file.kind {
        FileKind::Console => Meta { ino: 0, mode: S_IFCHR | 0o620, size: 0, rdev: (5, 1), mtime: 0 },
        FileKind::Device(Device::Null) => chr(3),
        FileKind::Device(Device::Zero) => chr(5),
        FileKind::Device(Device::Random) => chr(9),
        FileKind::Regular(n) | FileKind::Directory { node: n, .. } => {
            Meta { ino: n.ino, mode: n.mode, size: n.data.len() as u64, rdev: (0, 0), mtime: n.mtime }
        }
        FileKind::EventFd(_) | FileKind::Epoll(_) => Meta { ino: 0, mode: S_IFIFO | 0o600, size: 0, rdev: (0, 0), mtime: 0 },
    }
}

fn meta_of_path(dirfd: u64, name_ptr: u64, flags: u64) -> Result<Meta, isize> {
    let name = uaccess::read_cstr(name_ptr, 4096)?;
    if name.is_empty() && flags & AT_EMPTY_PATH != 0 {
        return Ok(meta_of_file(&*fd::file(dirfd)?));
    }
    let base = base_dir(dirfd)?;
    let abs = path::absolute(&base, &name);
    if abs.starts_with(b"/dev/") {
        if let Ok(fdno) = super::fs::openat(&[super::fs::AT_FDCWD as u64, name_ptr, 0, 0, 0, 0]) {
            let file = crate::process::process().files.lock().close(fdno as usize)?;
            return Ok(meta_of_file(&file));
        }
    }
    let (_, node) = path::resolve(b"/", &abs, flags & AT_SYMLINK_NOFOLLOW == 0)?;
    Ok(Meta { ino: node.ino, mode: node.mode, size: node.data.len() as u64, rdev: (0, 0), mtime: node.mtime })
}

fn put(buf: &mut [u8], at: usize, bytes: &[u8]) {
    buf[at..at + bytes.len()].copy_from_slice(bytes);
}

fn stat_bytes(m: &Meta) -> [u8; 128] {
    let mut b = [0u8; 128];
    put(&mut b, 0, &1u64.to_le_bytes()); // st_dev
    put(&mut b, 8, &m.ino.to_le_bytes());
    put(&mut b, 16, &m.mode.to_le_bytes());
    put(&mut b, 20, &1u32.to_le_bytes()); // st_nlink
    put(&mut b, 32, &(((m.rdev.0 as u64) << 8) | m.rdev.1 as u64).to_le_bytes());
    put(&mut b, 48, &m.size.to_le_bytes());
    put(&mut b, 56, &4096u32.to_le_bytes()); // st_blksize
    put(&mut b, 64, &m.size.div_ceil(512).to_le_bytes()); // st_blocks
    for at in [72, 88, 104] {
        put(&mut b, at, &m.mtime.to_le_bytes());
    }
    b
}

pub fn fstat(a: &Args) -> SysResult {
    let m = meta_of_file(&*fd::file(a[0])?);
    uaccess::write_bytes(a[1], &stat_bytes(&m))?;
    Ok(0)
}

pub fn newfstatat(a: &Args) -> SysResult {
    let m = meta_of_path(a[0], a[1], a[3])?;
    uaccess::write_bytes(a[2], &stat_bytes(&m))?;
    Ok(0)
}

const STATX_BASIC_STATS: u32 = 0x7ff;

pub fn statx(a: &Args) -> SysResult {
    if a[2] & !(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | 0x6000) != 0 {
        return Err(EINVAL);
    }
    let m = meta_of_path(a[0], a[1], a[2])?;
    let mut b = [0u8; 256];
    put(&mut b, 0, &STATX_BASIC_STATS.to_le_bytes());
    put(&mut b, 4, &4096u32.to_le_bytes());
    put(&mut b, 16, &1u32.to_le_bytes());
    put(&mut b, 28, &(m.mode as u16).to_le_bytes());
    put(&mut b, 32, &m.ino.to_le_bytes());
    put(&mut b, 40, &m.size.to_le_bytes());
    put(&mut b, 48, &m.size.div_ceil(512).to_le_bytes());
    for at in [64, 80, 96, 112] {
        put(&mut b, at, &m.mtime.to_le_bytes());
    }
    put(&mut b, 128, &m.rdev.0.to_le_bytes());
    put(&mut b, 132, &m.rdev.1.to_le_bytes());
    uaccess::write_bytes(a[4], &b)?;
    Ok(0)
}
