//! splice(2) with a pipe on one side: a socket or pipe into a pipe, or a
//! pipe into a socket, pipe or file. Go's TCPConn.ReadFrom between
//! connections and os.File.ReadFrom from a socket use it (through a pipe).
//! Bytes are copied through the kernel (nothing is moved page by page);
//! from a pipe only what the receiver takes leaves the pipe.

use super::io::write_chunk;
use super::SysResult;
use crate::fs::fd::{self, Fd, OpenFile};
use crate::fs::pipe::Pipe;
use crate::mm::uaccess::{UserPtr, UserSpace};
use alloc::sync::Arc;
use alloc::vec;
use gometal_core::linux::errno::*;

const SPLICE_F_NONBLOCK: u32 = 2;
/// The most one call moves.
const CHUNK: usize = 64 * 1024;

pub fn splice(user: &mut UserSpace, fd_in: Fd, off_in: UserPtr<i64>, fd_out: Fd, off_out: UserPtr<i64>, len: usize, flags: u32) -> SysResult {
    let input = fd::file(fd_in)?;
    let output = fd::file(fd_out)?;
    if !input.readable() || !output.writable() {
        return Err(EBADF);
    }
    let (in_pipe, out_pipe) = (input.downcast::<Pipe>(), output.downcast::<Pipe>());
    if in_pipe.is_none() && out_pipe.is_none() {
        return Err(EINVAL);
    }
    if (in_pipe.is_some() && !off_in.is_null()) || (out_pipe.is_some() && !off_out.is_null()) {
        return Err(ESPIPE);
    }
    if len == 0 {
        return Ok(0);
    }
    let nonblock = flags & SPLICE_F_NONBLOCK != 0;
    if let Some(p) = in_pipe {
        p.wait_readable(nonblock || input.nonblocking())?;
        let mut buf = vec![0u8; len.min(CHUNK)];
        let n = p.peek(&mut buf);
        if n == 0 {
            return Ok(0); // every writer gone
        }
        let wrote = from_pipe(user, &output, &buf[..n], off_out)?;
        p.consume(wrote);
        return Ok(wrote);
    }
    // Into a pipe, from a file that can fill one (a socket).
    let Some(p) = out_pipe.filter(|_| input.splice_source()) else { return Err(EINVAL) };
    let room = p.room();
    if room == 0 && (nonblock || output.nonblocking()) {
        return Err(EAGAIN);
    }
    let mut buf = vec![0u8; len.min(CHUNK).min(room.max(1))];
    let n = input.read(&input, &mut buf, None)?;
    if n == 0 {
        return Ok(0);
    }
    p.write(&buf[..n], false)
}

/// Writes what a pipe holds to `out`: a socket or pipe, or a file at
/// *off_out (moved on) or its own offset.
fn from_pipe(user: &mut UserSpace, out: &Arc<OpenFile>, data: &[u8], off_out: UserPtr<i64>) -> SysResult {
    let at = match off_out.non_null() {
        Some(p) if out.splice_target() && out.positional() => Some(u64::try_from(user.read(p)?).map_err(|_| EINVAL)?),
        Some(_) => return Err(ESPIPE),
        None => None,
    };
    if !out.splice_target() {
        return Err(EINVAL);
    }
    let wrote = write_chunk(out, data, at)?;
    if let (Some(p), Some(a)) = (off_out.non_null(), at) {
        user.write(p, &((a + wrote as u64) as i64))?;
    }
    Ok(wrote)
}
