//! Copies between the program's memory and a TCP connection's smoltcp
//! ring buffers (rx.rs reads with `to_user`, tx.rs writes with
//! `from_user`). A ring hands out at most two pieces (it may wrap); a
//! fault after some bytes ends the copy short, as a read or write that
//! meets an unmapped page does on Linux, and only what was copied is
//! taken from (or added to) the ring.

use crate::mm::uaccess::{UserSlice, UserSpace};
use gometal_core::linux::errno::Errno;
use smoltcp::socket::tcp;

/// Copies what smoltcp holds into the program's `buf`.
pub fn to_user(s: &mut tcp::Socket, user: &mut UserSpace, buf: UserSlice) -> Result<usize, Errno> {
    in_pieces(buf.len(), |done| {
        s.recv(|piece| {
            let n = piece.len().min(buf.len() - done);
            match user.write_bytes(buf.skip(done), &piece[..n]) {
                Ok(()) => (n, Ok(n)),
                Err(e) => (0, Err(e)),
            }
        })
        .ok()
    })
}

/// Copies the program's `buf` into smoltcp's free room.
pub fn from_user(s: &mut tcp::Socket, user: &mut UserSpace, buf: UserSlice) -> Result<usize, Errno> {
    in_pieces(buf.len(), |done| {
        s.send(|free| {
            let n = free.len().min(buf.len() - done);
            match user.read_into(buf.skip(done).prefix(n), &mut free[..n]) {
                Ok(()) => (n, Ok(n)),
                Err(e) => (0, Err(e)),
            }
        })
        .ok()
    })
}

/// Runs `piece(done)`, which copies the next piece after the first `done`
/// of `len` bytes (None or Ok(0): the ring has nothing more), until all
/// are copied; a fault is the answer only when nothing was copied.
fn in_pieces(len: usize, mut piece: impl FnMut(usize) -> Option<Result<usize, Errno>>) -> Result<usize, Errno> {
    let mut done = 0;
    while done < len {
        match piece(done) {
            None | Some(Ok(0)) => break,
            Some(Ok(n)) => done += n,
            Some(Err(e)) if done == 0 => return Err(e),
            Some(Err(_)) => break,
        }
    }
    Ok(done)
}
