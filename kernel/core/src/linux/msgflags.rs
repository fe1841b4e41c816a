//! The MSG_* flags of the send and receive calls (send(2), recv(2): the
//! numbers every Linux ABI shares), what a receive asks for, and what
//! MSG_WAITALL means for a stream: keep reading until the buffer is full.

use crate::linux::errno::Errno;

pub const MSG_PEEK: i32 = 0x2;
pub const MSG_CTRUNC: i32 = 0x8;
pub const MSG_TRUNC: i32 = 0x20;
pub const MSG_DONTWAIT: i32 = 0x40;
pub const MSG_WAITALL: i32 = 0x100;
pub const MSG_NOSIGNAL: i32 = 0x4000;
pub const MSG_WAITFORONE: i32 = 0x10000;

/// What a receive asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecvFlags {
    /// Do not wait (MSG_DONTWAIT, or a file opened O_NONBLOCK).
    pub nonblock: bool,
    /// Copy without taking (MSG_PEEK; it never waits for more, and
    /// MSG_WAITALL does not make it).
    pub peek: bool,
    /// A stream's receive waits for the whole buffer (MSG_WAITALL).
    pub waitall: bool,
}

impl RecvFlags {
    /// The flags of a receive call on a file opened O_NONBLOCK or not.
    pub fn new(flags: i32, file_nonblock: bool) -> RecvFlags {
        RecvFlags {
            nonblock: file_nonblock || flags & MSG_DONTWAIT != 0,
            peek: flags & MSG_PEEK != 0,
            waitall: flags & MSG_WAITALL != 0 && flags & MSG_PEEK == 0,
        }
    }
}

/// MSG_WAITALL on a stream: calls `read` (which reads into the slice it
/// is given, 0 at end of file) on the rest of `buf` until `buf` is full
/// or the stream ends. An error after some bytes ends the call with
/// those (Linux returns what was read when a signal, SO_RCVTIMEO or a
/// reset interrupts it); an error before any is the call's.
pub fn read_full(buf: &mut [u8], mut read: impl FnMut(&mut [u8]) -> Result<usize, Errno>) -> Result<usize, Errno> {
    let mut done = 0;
    while done < buf.len() {
        match read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if done == 0 => return Err(e),
            Err(_) => break,
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::errno::{EAGAIN, EINTR};

    #[test]
    fn flags() {
        assert_eq!(RecvFlags::new(0, false), RecvFlags::default());
        assert_eq!(RecvFlags::new(MSG_WAITALL | MSG_DONTWAIT, false), RecvFlags { nonblock: true, peek: false, waitall: true });
        assert_eq!(RecvFlags::new(MSG_WAITALL | MSG_PEEK, true), RecvFlags { nonblock: true, peek: true, waitall: false });
    }

    /// A stream that hands out its pieces one read at a time, then `end`.
    fn stream(pieces: &[&[u8]], end: Result<usize, Errno>) -> impl FnMut(&mut [u8]) -> Result<usize, Errno> {
        let mut left: Vec<Vec<u8>> = pieces.iter().rev().map(|p| p.to_vec()).collect();
        move |buf| match left.pop() {
            Some(mut p) => {
                let n = p.len().min(buf.len());
                buf[..n].copy_from_slice(&p[..n]);
                if n < p.len() {
                    left.push(p.split_off(n));
                }
                Ok(n)
            }
            None => end,
        }
    }

    #[test]
    fn fills_the_buffer_from_pieces() {
        let mut buf = [0u8; 6];
        assert_eq!(read_full(&mut buf, stream(&[b"ab", b"c", b"defgh"], Ok(0))), Ok(6));
        assert_eq!(&buf, b"abcdef");
    }

    #[test]
    fn end_of_file_returns_what_came() {
        let mut buf = [0u8; 6];
        assert_eq!(read_full(&mut buf, stream(&[b"ab", b"c"], Ok(0))), Ok(3));
        assert_eq!(read_full(&mut buf, stream(&[], Ok(0))), Ok(0));
    }

    #[test]
    fn an_error_after_bytes_returns_them() {
        let mut buf = [0u8; 6];
        assert_eq!(read_full(&mut buf, stream(&[b"abcd"], Err(EAGAIN))), Ok(4));
        assert_eq!(read_full(&mut buf, stream(&[b"a"], Err(EINTR))), Ok(1));
        assert_eq!(read_full(&mut buf, stream(&[], Err(EINTR))), Err(EINTR));
    }
}
