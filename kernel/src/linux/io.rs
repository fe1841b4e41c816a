//! Reading and writing: read, write, pread64, pwrite64, readv, writev, for
//! every kind of open file (files, pipes, the console, devices, eventfd).

use super::SysResult;
use crate::console;
use crate::fs::fd::{self, Fd, FileKind, OpenFile};
use crate::fs::inode::{Device, Kind};
use crate::mm::uaccess::{zeroed, UserPtr, UserSlice, UserSpace, UserValue};
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::errno::*;

/// Largest chunk copied through the kernel at once.
const CHUNK: usize = 16 * 1024;
/// For a file of a `-mount` share: one 9P message's worth (each chunk is
/// a round trip to the host, the costly part).
const HOST_CHUNK: usize = 64 * 1024;

fn chunk_for(file: &OpenFile) -> usize {
    match &file.kind {
        FileKind::File(node) if node.host().is_some() => HOST_CHUNK,
        _ => CHUNK,
    }
}

/// Reads from `file` at its offset (or at `at`, for pread) into user `buf`.
/// The buffer is checked first: only as many bytes as the program can take
/// are consumed (file offset, pipe contents, eventfd count), so a bad
/// buffer is EFAULT with nothing lost and a partly mapped one a short read.
fn read_file(user: &mut UserSpace, file: &Arc<OpenFile>, buf: UserSlice, at: Option<u64>) -> SysResult {
    let len = buf.len();
    if !file.readable() {
        return Err(EBADF);
    }
    let eventfd = matches!(file.kind, FileKind::EventFd(_));
    if eventfd && len < 8 {
        return Err(EINVAL);
    }
    let want = len.min(chunk_for(file));
    let room = user.accessible_prefix(buf.prefix(want), true)?;
    if (room == 0 && want > 0) || (eventfd && room < 8) {
        return Err(EFAULT);
    }
    let mut bytes = zeroed(room)?;
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
            let n = match node.host() {
                Some(_) => crate::fs::hostfile::read(node, pos, &mut bytes)?,
                None => data.lock().read(pos, &mut bytes),
            };
            if at.is_none() {
                *offset += n as u64;
            }
            n
        }
        FileKind::Pipe(p) => p.read(&mut bytes, file.nonblocking())?,
        FileKind::Socket(s) => crate::net::data::recv(s, &mut bytes, file.nonblocking(), false)?.copied,
        FileKind::EventFd(e) => {
            if len < 8 {
                return Err(EINVAL);
            }
            bytes[..8].copy_from_slice(&e.read(file.nonblocking())?.to_le_bytes());
            8
        }
        FileKind::Uio(u) => u.read_file(file, at, &mut bytes)?,
        FileKind::Device(Device::Uio(..)) => return Err(ENODEV), // opened as FileKind::Uio
        FileKind::Directory(_) => return Err(EISDIR),
        FileKind::Epoll(_) => return Err(EBADF),
    };
    user.write_bytes(buf, &bytes[..n])?;
    Ok(n)
}

pub fn random_errno(e: crate::random::NotReady) -> Errno {
    match e {
        crate::random::NotReady::WouldBlock => EAGAIN,
        crate::random::NotReady::Interrupted => EINTR,
    }
}

fn read_console(file: &OpenFile, bytes: &mut [u8]) -> SysResult {
    if file.nonblocking() {
        return console::take_input(bytes).ok_or(EAGAIN);
    }
    console::INPUT_WAITERS.wait_until(None, || console::take_input(bytes)).map_err(|_| EINTR)
}

/// Writes user `buf` to `file` at its offset (or `at`, for pwrite).
fn write_file(user: &mut UserSpace, file: &Arc<OpenFile>, buf: UserSlice, at: Option<u64>) -> SysResult {
    let len = buf.len();
    if !file.writable() {
        return Err(EBADF);
    }
    let step = chunk_for(file);
    let mut done = 0;
    while done < len {
        let chunk = buf.skip(done).prefix(step);
        // Only the readable start of the buffer is written (Linux's short
        // write when a later page is bad); EFAULT only if nothing is.
        let n = match user.accessible_prefix(chunk, false) {
            Ok(0) | Err(_) if done > 0 => break,
            Ok(0) => return Err(EFAULT),
            r => r?,
        };
        let bytes = match user.read_bytes(chunk.prefix(n)) {
            Ok(b) => b,
            Err(_) if done > 0 => break,
            Err(e) => return Err(e),
        };
        let wrote = match write_chunk(file, &bytes, at.map(|a| a + done as u64)) {
            Ok(w) => w,
            Err(e) if done == 0 => return Err(e),
            Err(_) => break,
        };
        done += wrote;
        if wrote < chunk.len() {
            break;
        }
    }
    Ok(done)
}

pub(super) fn write_chunk(file: &OpenFile, bytes: &[u8], at: Option<u64>) -> SysResult {
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
            if node.host().is_some() {
                // The host's file: written there before this returns.
                let want = at.or((!file.appending()).then_some(*offset));
                let (pos, n) = crate::fs::hostfile::write(node, want, bytes)?;
                if at.is_none() {
                    *offset = pos + n as u64;
                }
                return Ok(n);
            }
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
        FileKind::Socket(s) => crate::net::data::send(s, bytes, None, file.nonblocking()).inspect_err(|&e| raise_sigpipe(e)),
        FileKind::Uio(u) => u.write_file(file, at, bytes),
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
pub(super) fn raise_sigpipe(errno: Errno) {
    if errno == EPIPE {
        let t = crate::sched::current();
        let info = gometal_core::sigframe::SigInfo { signo: 13, code: 0, ..Default::default() };
        crate::signal::send_to_thread(&t, gometal_core::signal::SIGPIPE, info);
    }
}

pub fn read(user: &mut UserSpace, fd: Fd, buf: UserPtr<u8>, len: usize) -> SysResult {
    read_file(user, &fd::file(fd)?, buf.slice(len), None)
}

pub fn pread64(user: &mut UserSpace, fd: Fd, buf: UserPtr<u8>, len: usize, at: u64) -> SysResult {
    let file = fd::file(fd)?;
    if !matches!(file.kind, FileKind::File(_) | FileKind::Uio(_)) {
        return Err(ESPIPE);
    }
    read_file(user, &file, buf.slice(len), Some(at))
}

pub fn write(user: &mut UserSpace, fd: Fd, buf: UserPtr<u8>, len: usize) -> SysResult {
    write_file(user, &fd::file(fd)?, buf.slice(len), None)
}

pub fn pwrite64(user: &mut UserSpace, fd: Fd, buf: UserPtr<u8>, len: usize, at: u64) -> SysResult {
    let file = fd::file(fd)?;
    if !matches!(file.kind, FileKind::File(_) | FileKind::Uio(_)) {
        return Err(ESPIPE);
    }
    write_file(user, &file, buf.slice(len), Some(at))
}

/// struct iovec: a (base, len) pair.
pub struct IoVec {
    base: UserPtr<u8>,
    len: usize,
}

impl UserValue for IoVec {
    const SIZE: usize = 16;
    fn decode(b: &[u8]) -> Self {
        IoVec { base: UserPtr::new(u64::decode(&b[..8])), len: u64::decode(&b[8..]) as usize }
    }
    fn encode(&self, out: &mut [u8]) {
        self.base.addr().encode(&mut out[..8]);
        (self.len as u64).encode(&mut out[8..]);
    }
}

/// The user byte ranges of an iovec array.
pub(super) fn iovecs(user: &mut UserSpace, iov: UserPtr<IoVec>, count: usize) -> Result<Vec<UserSlice>, Errno> {
    if count > 1024 {
        return Err(EINVAL);
    }
    (0..count).map(|i| user.read(iov.at(i)).map(|v| v.base.slice(v.len))).collect()
}

pub fn readv(user: &mut UserSpace, fd: Fd, iov: UserPtr<IoVec>, count: usize) -> SysResult {
    let file = fd::file(fd)?;
    let mut total = 0;
    for buf in iovecs(user, iov, count)? {
        let n = match read_file(user, &file, buf, None) {
            Err(_) if total > 0 => break, // what was read stays read
            r => r?,
        };
        total += n;
        if n < buf.len() {
            break;
        }
    }
    Ok(total)
}

pub fn writev(user: &mut UserSpace, fd: Fd, iov: UserPtr<IoVec>, count: usize) -> SysResult {
    let file = fd::file(fd)?;
    let mut total = 0;
    for buf in iovecs(user, iov, count)? {
        let n = match write_file(user, &file, buf, None) {
            Err(_) if total > 0 => break,
            r => r?,
        };
        total += n;
        if n < buf.len() {
            break;
        }
    }
    Ok(total)
}
