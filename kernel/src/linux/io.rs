//! Reading and writing: read, write, pread64, pwrite64, readv, writev, for
//! every kind of open file (files, pipes, the console, devices, eventfd).

use super::{Args, SysResult};
use crate::console;
use crate::fs::fd::{self, FileKind, OpenFile};
use crate::fs::inode::{Device, Kind};
use crate::mm::uaccess;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::errno::*;

/// Largest chunk copied through the kernel at once.
const CHUNK: usize = 16 * 1024;

/// Reads from `file` at its offset (or at `at`, for pread) into user `buf`.
fn read_file(file: &Arc<OpenFile>, buf: u64, len: usize, at: Option<u64>) -> SysResult {
    if !file.readable() {
        return Err(EBADF);
    }
    let mut bytes = alloc::vec![0u8; len.min(CHUNK)];
    let n = match &file.kind {
        FileKind::Device(Device::Console) => read_console(file, &mut bytes)?,
        FileKind::Device(Device::Null) => 0,
        FileKind::Device(Device::Zero) => bytes.len(),
        FileKind::Device(Device::Stdio(n)) => {
            crate::stdio::read(crate::stdio::Stream::from_fd(*n as usize), &mut bytes, file.nonblocking())?
        }
        FileKind::Device(Device::Urandom) => {
            crate::random::fill(&mut bytes);
            bytes.len()
        }
        FileKind::Device(Device::Random) => {
            crate::random::fill_secure(&mut bytes, file.nonblocking()).map_err(random_errno)?;
            bytes.len()
        }
        FileKind::File(node) => {
            let Kind::File(data) = &node.kind else { return Err(EINVAL) };
            let mut offset = file.offset.lock();
            let pos = at.unwrap_or(*offset);
            let n = data.lock().read(pos, &mut bytes);
            if at.is_none() {
                *offset += n as u64;
            }
            n
        }
        FileKind::Pipe(p) => p.read(&mut bytes, file.nonblocking())?,
        FileKind::EventFd(e) => {
            if len < 8 {
                return Err(EINVAL);
            }
            bytes[..8].copy_from_slice(&e.read(file.nonblocking())?.to_le_bytes());
            8
        }
        FileKind::Directory(_) => return Err(EISDIR),
        FileKind::Epoll(_) => return Err(EBADF),
    };
    uaccess::write_bytes(buf, &bytes[..n])?;
    Ok(n as isize)
}

pub fn random_errno(e: crate::random::NotReady) -> isize {
    match e {
        crate::random::NotReady::WouldBlock => EAGAIN,
        crate::random::NotReady::Interrupted => EINTR,
    }
}

fn read_console(file: &OpenFile, bytes: &mut [u8]) -> Result<usize, isize> {
    if file.nonblocking() {
        return console::take_input(bytes).ok_or(EAGAIN);
    }
    console::INPUT_WAITERS.wait_until(None, || console::take_input(bytes)).map_err(|_| EINTR)
}

/// Writes user `buf` to `file` at its offset (or `at`, for pwrite).
fn write_file(file: &Arc<OpenFile>, buf: u64, len: usize, at: Option<u64>) -> SysResult {
    if !file.writable() {
        return Err(EBADF);
    }
    let mut done = 0;
    while done < len {
        let n = (len - done).min(CHUNK);
        let bytes = uaccess::read_bytes(buf + done as u64, n)?;
        let wrote = match write_chunk(file, &bytes, at.map(|a| a + done as u64)) {
            Ok(w) => w,
            Err(e) if done == 0 => return Err(e),
            Err(_) => break,
        };
        done += wrote;
        if wrote < n {
            break;
        }
    }
    Ok(done as isize)
}

fn write_chunk(file: &OpenFile, bytes: &[u8], at: Option<u64>) -> Result<usize, isize> {
    match &file.kind {
        FileKind::Device(Device::Console) => {
            console::write_bytes(bytes);
            Ok(bytes.len())
        }
        FileKind::Device(Device::Stdio(n)) => {
            crate::stdio::write(crate::stdio::Stream::from_fd(*n as usize), bytes).inspect_err(|&e| raise_sigpipe(e))
        }
        FileKind::Device(_) => Ok(bytes.len()),
        FileKind::File(node) => {
            let Kind::File(data) = &node.kind else { return Err(EINVAL) };
            let mut offset = file.offset.lock();
            let mut d = data.lock();
            let pos = match at {
                Some(p) => p,
                None if file.appending() => d.size,
                None => *offset,
            };
            let n = d.write(pos, bytes)?;
            drop(d);
            if at.is_none() {
                *offset = pos + n as u64;
            }
            node.touch();
            Ok(n)
        }
        FileKind::Pipe(p) => p.write(bytes, file.nonblocking()).inspect_err(|&e| raise_sigpipe(e)),
        FileKind::EventFd(e) => {
            if bytes.len() < 8 {
                return Err(EINVAL);
            }
            e.write(u64::from_le_bytes(bytes[..8].try_into().unwrap()), file.nonblocking())?;
            Ok(8)
        }
        FileKind::Directory(_) => Err(EISDIR),
        FileKind::Epoll(_) => Err(EBADF),
    }
}

/// A write to a reader that went away raises SIGPIPE, as on Linux.
fn raise_sigpipe(errno: isize) {
    if errno == EPIPE {
        let t = crate::sched::current();
        let info = gometal_core::sigframe::SigInfo { signo: 13, code: 0, ..Default::default() };
        crate::signal::send_to_thread(&t, gometal_core::signal::SIGPIPE, info);
    }
}

pub fn read(a: &Args) -> SysResult {
    read_file(&fd::file(a[0])?, a[1], a[2] as usize, None)
}

pub fn pread64(a: &Args) -> SysResult {
    let file = fd::file(a[0])?;
    if !matches!(file.kind, FileKind::File(_)) {
        return Err(ESPIPE);
    }
    read_file(&file, a[1], a[2] as usize, Some(a[3]))
}

pub fn write(a: &Args) -> SysResult {
    write_file(&fd::file(a[0])?, a[1], a[2] as usize, None)
}

pub fn pwrite64(a: &Args) -> SysResult {
    let file = fd::file(a[0])?;
    if !matches!(file.kind, FileKind::File(_)) {
        return Err(ESPIPE);
    }
    write_file(&file, a[1], a[2] as usize, Some(a[3]))
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
            (base, u64::from_le_bytes(c[8..].try_into().unwrap()) as usize)
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
        let n = write_file(&file, base, len, None)?;
        total += n;
        if (n as usize) < len {
            break;
        }
    }
    Ok(total)
}

