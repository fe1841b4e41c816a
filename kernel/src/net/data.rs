//! Moving bytes through a socket, whatever its type: read/write/readv/
//! writev and the send/receive calls all come here.

use super::socket::{SockType, Socket, State};
use super::stream::Endpoint;
use alloc::sync::Arc;
use gometal_core::linux::errno::*;
use gometal_core::linux::msgflags::{read_full, RecvFlags};
use gometal_core::linux::sockaddr::SockAddr;

/// The connected end of a stream socket, taken out of the state lock so a
/// blocking read or write does not hold it.
fn endpoint(sock: &Socket) -> Option<Arc<Endpoint>> {
    match &*sock.state.lock() {
        State::Connected(e) => Some(e.clone()),
        _ => None,
    }
}

/// What a receive got: bytes copied, the message's full length (longer for
/// a truncated datagram) and the sender, where the type has one.
pub struct Received {
    pub copied: usize,
    pub full: usize,
    pub from: Option<SockAddr>,
    /// A UDP datagram's packet facts (recvmsg's control messages).
    pub info: Option<gometal_core::linux::cmsg::PacketInfo>,
}

/// Receives into `buf` as `how` says. MSG_WAITALL on a stream (TCP,
/// AF_UNIX stream; not seqpacket, whose reads take one message each, nor
/// datagrams) reads until `buf` is full, the stream ends, or an error, a
/// signal or SO_RCVTIMEO (one deadline for the whole call) ends it with
/// what it has.
pub fn recv(sock: &Socket, buf: &mut [u8], how: RecvFlags) -> Result<Received, Errno> {
    if sock.ty == SockType::Dgram {
        let got = super::dgram::recv(sock, buf, how.nonblock, how.peek)?;
        return Ok(Received { copied: got.copied, full: got.full, from: Some(got.from), info: got.info });
    }
    let Some(e) = endpoint(sock) else {
        return Err(sock.take_error().unwrap_or(ENOTCONN));
    };
    let deadline = super::timeo::recv_deadline(sock);
    let n = if how.peek {
        e.peek(buf)?
    } else if how.waitall && sock.ty == SockType::Stream {
        read_full(buf, |rest| e.read_until(rest, how.nonblock, deadline))?
    } else {
        e.read_until(buf, how.nonblock, deadline)?
    };
    Ok(Received { copied: n, full: n, from: None, info: None })
}

/// read(2) of a connection through the NIC straight into the program's
/// buffer (nic/rx.rs); None for every other socket (the caller reads into
/// a kernel buffer with `recv`).
pub fn recv_user(sock: &Socket, user: &mut crate::mm::uaccess::UserSpace, buf: crate::mm::uaccess::UserSlice, nonblock: bool) -> Option<Result<usize, Errno>> {
    if sock.ty != SockType::Stream {
        return None;
    }
    endpoint(sock)?.read_user(user, buf, nonblock, super::timeo::recv_deadline(sock))
}

/// Sends `data` (to `dest` for an unconnected datagram socket). EPIPE from
/// a stream means SIGPIPE too, which the caller raises.
pub fn send(sock: &Arc<Socket>, data: &[u8], dest: Option<SockAddr>, nonblock: bool) -> Result<usize, Errno> {
    if sock.ty == SockType::Dgram {
        return super::dgram::send(sock, data, dest, nonblock);
    }
    match endpoint(sock) {
        Some(e) => {
            let r = e.write_until(data, nonblock, super::timeo::send_deadline(sock));
            if let Some(shard) = e.nic_shard() {
                super::nic::kick(shard); // its connection sends it now
            }
            r
        }
        None => Err(sock.take_error().unwrap_or(if sock.is_tcp() { EPIPE } else { ENOTCONN })),
    }
}

/// write(2) to a connection through the NIC straight from the program's
/// buffer into smoltcp's (nic/tx.rs); None for every other socket.
pub fn send_user(sock: &Socket, user: &mut crate::mm::uaccess::UserSpace, buf: crate::mm::uaccess::UserSlice, nonblock: bool) -> Option<Result<usize, Errno>> {
    if sock.ty != SockType::Stream {
        return None;
    }
    let e = endpoint(sock)?;
    let r = e.write_user(user, buf, nonblock, super::timeo::send_deadline(sock))?;
    if let Some(shard) = e.nic_shard() {
        super::nic::kick(shard); // its connection sends it now
    }
    Some(r)
}

/// Bytes a read would return now (ioctl FIONREAD).
pub fn pending(sock: &Socket) -> usize {
    if let Some(q) = &sock.queue {
        return q.next_len();
    }
    endpoint(sock).map_or(0, |e| e.pending())
}
