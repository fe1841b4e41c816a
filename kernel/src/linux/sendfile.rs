//! sendfile(2): copies from a regular file to any writable descriptor (a
//! socket, for Go's TCPConn.ReadFrom and net/http's file serving) inside the
//! kernel, from the file's offset or from *offset (which then moves instead).

use super::io::write_chunk;
use super::SysResult;
use crate::fs::fd::{self, Fd};
use crate::mm::uaccess::{UserPtr, UserSpace};
use gometal_core::linux::errno::*;

/// Linux moves at most this much in one call.
const MAX_COUNT: usize = 0x7fff_f000;
const CHUNK: usize = 64 * 1024;

pub fn sendfile(user: &mut UserSpace, out_fd: Fd, in_fd: Fd, offset: UserPtr<i64>, count: usize) -> SysResult {
    let input = fd::file(in_fd)?;
    let output = fd::file(out_fd)?;
    if !input.readable() || !output.writable() {
        return Err(EBADF);
    }
    if !input.sendfile_source() || output.appending() {
        return Err(EINVAL);
    }
    let explicit = offset.non_null();
    let start = match explicit {
        Some(p) => u64::try_from(user.read(p)?).map_err(|_| EINVAL)?,
        None => *input.offset.lock(),
    };
    let count = count.min(MAX_COUNT);
    let mut done = 0usize;
    let mut chunk = alloc::vec![0u8; CHUNK.min(count)];
    while done < count {
        let want = (count - done).min(CHUNK);
        let got = input.read(&input, &mut chunk[..want], Some(start + done as u64))?;
        if got == 0 {
            break;
        }
        let wrote = match write_chunk(&output, &chunk[..got], None) {
            Ok(w) => w,
            Err(e) if done == 0 => return Err(e), // SIGPIPE already raised
            Err(_) => break,
        };
        done += wrote;
        if wrote < got {
            break;
        }
    }
    match explicit {
        Some(p) => user.write(p, &((start + done as u64) as i64))?,
        None => *input.offset.lock() = start + done as u64,
    }
    Ok(done)
}
