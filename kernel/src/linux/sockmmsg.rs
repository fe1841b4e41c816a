//! recvmmsg and sendmmsg: several datagrams in one call (what QUIC and
//! DNS servers use, through golang.org/x/net's ReadBatch and WriteBatch),
//! each one recvmsg or sendmsg (sockmsg.rs) on an element of the
//! `struct mmsghdr` array, its byte count written to the element's
//! msg_len.

use super::sockmsg::{recvmsg, sendmsg, MsgHdr};
use super::SysResult;
use crate::fs::fd::Fd;
use crate::mm::uaccess::{UserPtr, UserSpace};
use gometal_core::linux::msgflags::{MSG_DONTWAIT, MSG_WAITFORONE};

/// sizeof(struct mmsghdr): a msghdr, msg_len, padding.
const MMSGHDR: u64 = 64;
const MSG_LEN_AT: u64 = 56;
/// UIO_MAXIOV: the most elements one call takes.
const MAX_VLEN: u32 = 1024;

fn element(vec: UserPtr<u8>, i: u32) -> u64 {
    vec.addr() + i as u64 * MMSGHDR
}

/// Receives up to `vlen` datagrams: the number received. As on Linux,
/// MSG_WAITFORONE makes every receive after the first non-blocking, an
/// error after the first datagram ends the call with the count, and an
/// error on the first is the call's error. A timeout is taken to mean
/// the same as MSG_WAITFORONE (gometal does not time the later receives).
pub fn recvmmsg(user: &mut UserSpace, fd: Fd, vec: UserPtr<u8>, vlen: u32, flags: i32, timeout: UserPtr<u8>) -> SysResult {
    let mut flags = flags & !MSG_WAITFORONE | if flags & MSG_WAITFORONE != 0 || !timeout.is_null() { MSG_WAITFORONE } else { 0 };
    let mut got = 0;
    while got < vlen.min(MAX_VLEN) {
        let at = element(vec, got);
        let n = match recvmsg(user, fd, UserPtr::<MsgHdr>::new(at), flags & !MSG_WAITFORONE) {
            Ok(n) => n,
            Err(e) if got == 0 => return Err(e),
            Err(_) => break,
        };
        user.write(UserPtr::<u32>::new(at + MSG_LEN_AT), &(n as u32))?;
        got += 1;
        if flags & MSG_WAITFORONE != 0 {
            flags |= MSG_DONTWAIT;
        }
    }
    Ok(got as usize)
}

/// Sends up to `vlen` datagrams: the number sent; an error on the first
/// is the call's error, a later one ends it with the count.
pub fn sendmmsg(user: &mut UserSpace, fd: Fd, vec: UserPtr<u8>, vlen: u32, flags: i32) -> SysResult {
    let mut sent = 0;
    while sent < vlen.min(MAX_VLEN) {
        let at = element(vec, sent);
        let n = match sendmsg(user, fd, UserPtr::<MsgHdr>::new(at), flags) {
            Ok(n) => n,
            Err(e) if sent == 0 => return Err(e),
            Err(_) => break,
        };
        user.write(UserPtr::<u32>::new(at + MSG_LEN_AT), &(n as u32))?;
        sent += 1;
    }
    Ok(sent as usize)
}
