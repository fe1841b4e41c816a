//! Reading and writing: read, write, pread64, pwrite64, readv, writev,
//! preadv, pwritev, preadv2, pwritev2, for
//! every kind of open file: the user buffer is checked and copied here,
//! the bytes come from or go to the file's own read and write (fs/file.rs).
//! As on Linux, the descriptor and its access mode are checked first
//! (EBADF), then the whole user range (userbuf.rs: EFAULT for one that is
//! not the program's, whatever the file), then the file has its say.

use super::userbuf::{import_iovec, UserBuf, UserIovec};
use super::{iocount, SysResult};
use crate::fs::fd::{self, Fd, OpenFile};
use crate::mm::uaccess::{zeroed, UserSlice, UserSpace};
use alloc::sync::Arc;
use gometal_core::linux::errno::*;
use gometal_core::mm::useraddr::MAX_RW_COUNT;

/// The open file `fd`, if it was opened for reading (EBADF otherwise).
fn readable(fd: Fd) -> Result<Arc<OpenFile>, Errno> {
    let file = fd::file(fd)?;
    if !file.readable() {
        return Err(EBADF);
    }
    Ok(file)
}

/// The open file `fd`, if it was opened for writing (EBADF otherwise).
fn writable(fd: Fd) -> Result<Arc<OpenFile>, Errno> {
    let file = fd::file(fd)?;
    if !file.writable() {
        return Err(EBADF);
    }
    Ok(file)
}

/// Reads from `file` (readable) at its offset (or at `at`, for pread) into
/// the user range `buf` (in user space: userbuf.rs checked it). Only as many
/// bytes as the program's pages can take are consumed (file offset, pipe
/// contents, eventfd count), so an unmapped buffer is EFAULT with nothing
/// lost and a partly mapped one a short read.
fn read_file(user: &mut UserSpace, file: &Arc<OpenFile>, buf: UserSlice, at: Option<u64>) -> SysResult {
    let len = buf.len();
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

/// Writes the user range `buf` (checked) to `file` (writable) at its
/// offset (or `at`, for pwrite).
fn write_file(user: &mut UserSpace, file: &Arc<OpenFile>, buf: UserSlice, at: Option<u64>) -> SysResult {
    let len = buf.len();
    if file.discards_writes() {
        return Ok(len.min(MAX_RW_COUNT as usize)); // never reads the buffer
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

pub fn read(user: &mut UserSpace, fd: Fd, buf: UserBuf) -> SysResult {
    iocount::read(readable(fd).and_then(|file| read_file(user, &file, buf.range()?, None)))
}

pub fn pread64(user: &mut UserSpace, fd: Fd, buf: UserBuf, at: u64) -> SysResult {
    iocount::read(pread_at(user, fd, buf, at))
}

fn pread_at(user: &mut UserSpace, fd: Fd, buf: UserBuf, at: u64) -> SysResult {
    let file = positional(fd, at)?;
    if !file.readable() {
        return Err(EBADF);
    }
    read_file(user, &file, buf.range()?, Some(at))
}

/// pread64 and pwrite64's file: EINVAL for a negative offset, then EBADF,
/// then ESPIPE for a file without offsets, in Linux's order.
fn positional(fd: Fd, at: u64) -> Result<Arc<OpenFile>, Errno> {
    if (at as i64) < 0 {
        return Err(EINVAL);
    }
    let file = fd::file(fd)?;
    if !file.positional() {
        return Err(ESPIPE);
    }
    Ok(file)
}

pub fn write(user: &mut UserSpace, fd: Fd, buf: UserBuf) -> SysResult {
    iocount::write(writable(fd).and_then(|file| write_file(user, &file, buf.range()?, None)))
}

pub fn pwrite64(user: &mut UserSpace, fd: Fd, buf: UserBuf, at: u64) -> SysResult {
    iocount::write(pwrite_at(user, fd, buf, at))
}

fn pwrite_at(user: &mut UserSpace, fd: Fd, buf: UserBuf, at: u64) -> SysResult {
    let file = positional(fd, at)?;
    if !file.writable() {
        return Err(EBADF);
    }
    write_file(user, &file, buf.range()?, Some(at))
}

/// RWF_HIPRI, preadv2/pwritev2's one flag gometal takes (a polling hint:
/// nothing to poll); the others are EOPNOTSUPP, as Linux answers for a file
/// without them.
const RWF_HIPRI: u32 = 1;

pub fn readv(user: &mut UserSpace, fd: Fd, iov: UserIovec) -> SysResult {
    iocount::read(readable(fd).and_then(|file| read_vectors(user, &file, iov, None, 0)))
}

/// preadv(fd, iov, iovcnt, pos_l, pos_h): on a 64-bit CPU pos_l is the
/// offset; a negative one is EINVAL.
pub fn preadv(user: &mut UserSpace, fd: Fd, iov: UserIovec, at: u64) -> SysResult {
    iocount::read(pread_vectors(user, fd, iov, at, 0))
}

/// preadv2: preadv with flags; offset -1 reads at the file offset, as readv.
pub fn preadv2(user: &mut UserSpace, fd: Fd, iov: UserIovec, at: u64, _at_high: u64, flags: u32) -> SysResult {
    iocount::read(match at as i64 {
        -1 => readable(fd).and_then(|file| read_vectors(user, &file, iov, None, flags)),
        _ => pread_vectors(user, fd, iov, at, flags),
    })
}

fn pread_vectors(user: &mut UserSpace, fd: Fd, iov: UserIovec, at: u64, flags: u32) -> SysResult {
    let file = positional(fd, at)?;
    if !file.readable() {
        return Err(EBADF);
    }
    read_vectors(user, &file, iov, Some(at), flags)
}

/// Reads into the user ranges of `iov` (import_iovec checks them all
/// first), from `at` onwards or the file offset, until one comes back short.
fn read_vectors(user: &mut UserSpace, file: &Arc<OpenFile>, iov: UserIovec, at: Option<u64>, flags: u32) -> SysResult {
    let bufs = import_iovec(user, iov)?;
    if bufs.iter().all(|b| b.len() == 0) {
        return Ok(0);
    }
    if flags & !RWF_HIPRI != 0 {
        return Err(EOPNOTSUPP);
    }
    let mut total = 0;
    for buf in bufs {
        let n = match read_file(user, file, buf, at.map(|a| a + total as u64)) {
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

pub fn writev(user: &mut UserSpace, fd: Fd, iov: UserIovec) -> SysResult {
    iocount::write(writable(fd).and_then(|file| write_vectors(user, &file, iov, None, 0)))
}

pub fn pwritev(user: &mut UserSpace, fd: Fd, iov: UserIovec, at: u64) -> SysResult {
    iocount::write(pwrite_vectors(user, fd, iov, at, 0))
}

pub fn pwritev2(user: &mut UserSpace, fd: Fd, iov: UserIovec, at: u64, _at_high: u64, flags: u32) -> SysResult {
    iocount::write(match at as i64 {
        -1 => writable(fd).and_then(|file| write_vectors(user, &file, iov, None, flags)),
        _ => pwrite_vectors(user, fd, iov, at, flags),
    })
}

fn pwrite_vectors(user: &mut UserSpace, fd: Fd, iov: UserIovec, at: u64, flags: u32) -> SysResult {
    let file = positional(fd, at)?;
    if !file.writable() {
        return Err(EBADF);
    }
    write_vectors(user, &file, iov, Some(at), flags)
}

fn write_vectors(user: &mut UserSpace, file: &Arc<OpenFile>, iov: UserIovec, at: Option<u64>, flags: u32) -> SysResult {
    let bufs = import_iovec(user, iov)?;
    if bufs.iter().all(|b| b.len() == 0) {
        return Ok(0);
    }
    if flags & !RWF_HIPRI != 0 {
        return Err(EOPNOTSUPP);
    }
    let mut total = 0;
    for buf in bufs {
        let n = match write_file(user, file, buf, at.map(|a| a + total as u64)) {
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
