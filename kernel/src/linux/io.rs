//! Reading and writing: read, write, pread64, pwrite64, readv, writev, for
//! every kind of open file: the user buffer is checked and copied here,
//! the bytes come from or go to the file's own read and write (fs/file.rs).

use super::{iocount, SysResult};
use crate::fs::fd::{self, Fd, OpenFile};
use crate::mm::uaccess::{zeroed, UserPtr, UserSlice, UserSpace, UserValue};
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::linux::errno::*;

/// Reads from `file` at its offset (or at `at`, for pread) into user `buf`.
/// The buffer is checked first: only as many bytes as the program can take
/// are consumed (file offset, pipe contents, eventfd count), so a bad
/// buffer is EFAULT with nothing lost and a partly mapped one a short read.
fn read_file(user: &mut UserSpace, file: &Arc<OpenFile>, buf: UserSlice, at: Option<u64>) -> SysResult {
    let len = buf.len();
    if !file.readable() {
        return Err(EBADF);
    }
    let least = file.min_read();
    if len < least {
        return Err(EINVAL);
    }
    if at.is_none() {
        if let Some(r) = file.read_user(file, user, buf) {
            return r;
        }
    }
    let want = len.min(file.io_chunk());
    let room = user.accessible_prefix(buf.prefix(want), true)?;
    if (room == 0 && want > 0) || room < least {
        return Err(EFAULT);
    }
    let mut bytes = zeroed(room)?;
    let n = file.read(file, &mut bytes, at)?;
    user.write_bytes(buf, &bytes[..n])?;
    Ok(n)
}

/// Writes user `buf` to `file` at its offset (or `at`, for pwrite).
/// The most one read or write moves on Linux (INT_MAX rounded down to pages).
const MAX_RW_COUNT: usize = 0x7fff_f000;

fn write_file(user: &mut UserSpace, file: &Arc<OpenFile>, buf: UserSlice, at: Option<u64>) -> SysResult {
    let len = buf.len();
    if !file.writable() {
        return Err(EBADF);
    }
    if file.discards_writes() {
        return Ok(len.min(MAX_RW_COUNT));
    }
    if at.is_none() {
        if let Some(r) = file.write_user(file, user, buf) {
            return r.inspect_err(|&e| raise_sigpipe(e));
        }
    }
    let step = file.io_chunk();
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

/// Writes kernel bytes to `file` (write, and splice and sendfile's output).
pub(super) fn write_chunk(file: &OpenFile, bytes: &[u8], at: Option<u64>) -> SysResult {
    file.write(file, bytes, at).inspect_err(|&e| raise_sigpipe(e))
}

/// A write to a reader that went away raises SIGPIPE, as on Linux.
pub(super) fn raise_sigpipe(errno: Errno) {
    if errno == EPIPE {
        let t = crate::sched::current();
        let info = gometal_core::signal::sigframe::SigInfo { signo: 13, code: 0, ..Default::default() };
        crate::signal::send_to_thread(&t, gometal_core::signal::SIGPIPE, info);
    }
}

pub fn read(user: &mut UserSpace, fd: Fd, buf: UserPtr<u8>, len: usize) -> SysResult {
    iocount::read(fd::file(fd).and_then(|file| read_file(user, &file, buf.slice(len), None)))
}

pub fn pread64(user: &mut UserSpace, fd: Fd, buf: UserPtr<u8>, len: usize, at: u64) -> SysResult {
    iocount::read(pread_at(user, fd, buf, len, at))
}

fn pread_at(user: &mut UserSpace, fd: Fd, buf: UserPtr<u8>, len: usize, at: u64) -> SysResult {
    let file = fd::file(fd)?;
    if !file.positional() {
        return Err(ESPIPE);
    }
    read_file(user, &file, buf.slice(len), Some(at))
}

pub fn write(user: &mut UserSpace, fd: Fd, buf: UserPtr<u8>, len: usize) -> SysResult {
    iocount::write(fd::file(fd).and_then(|file| write_file(user, &file, buf.slice(len), None)))
}

pub fn pwrite64(user: &mut UserSpace, fd: Fd, buf: UserPtr<u8>, len: usize, at: u64) -> SysResult {
    iocount::write(pwrite_at(user, fd, buf, len, at))
}

fn pwrite_at(user: &mut UserSpace, fd: Fd, buf: UserPtr<u8>, len: usize, at: u64) -> SysResult {
    let file = fd::file(fd)?;
    if !file.positional() {
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
    iocount::read(read_vectors(user, fd, iov, count))
}

fn read_vectors(user: &mut UserSpace, fd: Fd, iov: UserPtr<IoVec>, count: usize) -> SysResult {
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
    iocount::write(write_vectors(user, fd, iov, count))
}

fn write_vectors(user: &mut UserSpace, fd: Fd, iov: UserPtr<IoVec>, count: usize) -> SysResult {
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
