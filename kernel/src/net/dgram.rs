//! Datagram sockets (UDP, AF_UNIX datagram): a sent datagram goes straight
//! onto the receiving socket's queue with the sender's address, or out
//! through the network device (nic/udp.rs, which queues arriving ones
//! here the same way).
//!
//! A full UDP queue drops the datagram, as a real receiver's full buffer
//! does; an AF_UNIX sender waits for room instead (EAGAIN if non-blocking),
//! as on Linux. UDP to a port nobody holds is dropped, and a connected
//! sender learns ECONNREFUSED (Linux's ICMP port unreachable).

use super::msgbuf::MsgBuf;
use super::socket::{Family, Socket};
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use crate::fs::pipe::wait_errno;
use gometal_core::linux::errno::*;
use gometal_core::linux::cmsg::PacketInfo;
use gometal_core::linux::sockaddr::{InetAddr, SockAddr, UnixAddr};
use crate::sync::{Lock, LockClass};

/// What a receive queue may hold (net.core.rmem_default), counting each
/// datagram's bookkeeping as Linux counts an skb's.
const QUEUE_BYTES: usize = 212_992;
const OVERHEAD: usize = 256;

/// The largest UDP payload over IPv4 (65535 - 20 - 8) and the largest
/// AF_UNIX datagram (the default send buffer).
pub const MAX_UDP: usize = 65_507;
const MAX_UNIX: usize = 212_992;

pub struct Datagram {
    pub from: SockAddr,
    pub data: MsgBuf,
    /// UDP: the packet's destination, interface, TOS and TTL (for the
    /// control messages recvmsg may add).
    pub info: Option<PacketInfo>,
}

pub struct DgramQueue {
    q: Lock<(VecDeque<Datagram>, usize)>,
}

impl DgramQueue {
    pub fn new() -> Self {
        DgramQueue { q: Lock::new(LockClass::MessageQueue, (VecDeque::new(), 0)) }
    }

    pub fn is_empty(&self) -> bool {
        self.q.lock().0.is_empty()
    }

    /// The size of the next datagram (FIONREAD).
    pub fn next_len(&self) -> usize {
        self.q.lock().0.front().map_or(0, |d| d.data.len())
    }

    /// Queues `d`; gives it back when the queue is full.
    fn push(&self, d: Datagram) -> Result<(), Datagram> {
        let mut q = self.q.lock();
        let cost = d.data.len() + OVERHEAD;
        if q.1 + cost > QUEUE_BYTES && !q.0.is_empty() {
            return Err(d);
        }
        q.1 += cost;
        q.0.push_back(d);
        Ok(())
    }

    /// Copies the next datagram into `buf` (taking it unless `peek`).
    fn pop_into(&self, buf: &mut [u8], peek: bool) -> Option<Got> {
        let mut q = self.q.lock();
        let d = q.0.front()?;
        let n = d.data.len().min(buf.len());
        buf[..n].copy_from_slice(&d.data[..n]);
        let got = Got { copied: n, full: d.data.len(), from: d.from.clone(), info: d.info };
        if !peek {
            let d = q.0.pop_front()?;
            q.1 -= d.data.len() + OVERHEAD;
        }
        Some(got)
    }
}

/// A received datagram: bytes copied, its full length, the sender, what
/// the packet said.
pub struct Got {
    pub copied: usize,
    pub full: usize,
    pub from: SockAddr,
    pub info: Option<PacketInfo>,
}

/// Receives one datagram into `buf`. The rest of a datagram longer than
/// `buf` is lost.
pub fn recv(sock: &Socket, buf: &mut [u8], nonblock: bool, peek: bool) -> Result<Got, Errno> {
    let queue = sock.queue.as_ref().ok_or(EINVAL)?;
    let mut take = || match sock.take_error() {
        Some(e) => Some(Err(e)),
        None => queue.pop_into(buf, peek).map(Ok),
    };
    let got = if nonblock {
        take().ok_or(EAGAIN)??
    } else {
        sock.waiters.wait_until(super::timeo::recv_deadline(sock), take).map_err(wait_errno)??
    };
    if !peek {
        sock.changed();
    }
    Ok(got)
}

/// Sends `data` to `dest` (or the connected peer).
pub fn send(sock: &Arc<Socket>, data: &[u8], dest: Option<SockAddr>, nonblock: bool) -> Result<usize, Errno> {
    if let Some(e) = sock.take_error() {
        return Err(e);
    }
    if sock.family == Family::Unix {
        return send_unix(sock, data, dest, nonblock);
    }
    if sock.icmp.is_some() {
        return super::ping::send(sock, data, dest);
    }
    if data.len() > MAX_UDP {
        return Err(EMSGSIZE);
    }
    let connected = sock.peer.lock().clone();
    let Some(SockAddr::Inet(to)) = dest.or(connected.clone()) else {
        return Err(if connected.is_none() { EDESTADDRREQ } else { EAFNOSUPPORT });
    };
    let from = super::inet::autobind(sock, to, false)?;
    if super::nic::routes(&to) {
        super::nic::udp::send(from, to, data)?; // over the network device
        return Ok(data.len());
    }
    let Some(target) = super::inet::find_udp(to, Some(&from)) else {
        if connected.is_some() {
            sock.set_error(ECONNREFUSED);
        }
        return Ok(data.len());
    };
    // Through loopback, as Linux routes a packet to any local address.
    let (tos, ttl) = sock.opts.lock().tos_ttl(!to.is_v4());
    let info = PacketInfo { dst: to.ip, v4: to.is_v4(), ifindex: super::ifaces::LOOPBACK_INDEX, tos, ttl };
    deliver(&target, from, data, info);
    Ok(data.len())
}

/// Queues a UDP datagram from `from` on `target` (from this kernel or the
/// network device). It is dropped when the queue or the heap is full, as
/// a full receive buffer drops it, when `target` is connected to
/// another address (Linux delivers only the peer's datagrams to it), and
/// when the socket's BPF filter says so (filter.rs; it may also cut it).
pub fn deliver(target: &Socket, from: InetAddr, data: &[u8], info: PacketInfo) {
    if let Some(SockAddr::Inet(peer)) = &*target.peer.lock() {
        if peer.ip != from.ip || peer.port != from.port {
            return;
        }
    }
    let port = match &*target.local.lock() {
        Some(SockAddr::Inet(a)) => a.port,
        _ => 0,
    };
    let Some(keep) = super::filter::udp(target, &from, port, data, &info) else { return };
    queue_with(target, SockAddr::Inet(from.as_family(target.family == Family::Inet6)), &data[..keep], Some(info));
}

/// Queues an ICMP message from `from` on `target` as it is (dropped when
/// full, see deliver, or by the socket's filter).
pub fn queue_datagram(target: &Socket, from: SockAddr, data: &[u8]) {
    let device = match &from {
        SockAddr::Inet(a) if !a.is_loopback() && !super::nic::is_own(a) => super::ifaces::ETH_INDEX,
        _ => super::ifaces::LOOPBACK_INDEX,
    };
    let v4 = matches!(&from, SockAddr::Inet(a) if a.is_v4());
    let Some(keep) = super::filter::datagram(target, data, Some((v4, device))) else { return };
    queue_with(target, from, &data[..keep], None);
}

fn queue_with(target: &Socket, from: SockAddr, data: &[u8], info: Option<PacketInfo>) {
    let Some(queue) = target.queue.as_ref() else { return };
    let Ok(copy) = MsgBuf::copy_of(data) else { return };
    if queue.push(Datagram { from, data: copy, info }).is_ok() {
        target.changed();
    }
}

fn send_unix(sock: &Arc<Socket>, data: &[u8], dest: Option<SockAddr>, nonblock: bool) -> Result<usize, Errno> {
    if data.len() > MAX_UNIX {
        return Err(EMSGSIZE);
    }
    let target = match dest {
        Some(SockAddr::Unix(name)) => super::unixns::find(&name)?,
        Some(_) => return Err(EINVAL),
        None => {
            let peer = sock.dgram_peer.lock().clone().ok_or(ENOTCONN)?;
            peer.upgrade().ok_or(ECONNREFUSED)?
        }
    };
    let queue = target.queue.as_ref().ok_or(EPROTOTYPE)?;
    // The receiver's filter: a dropped datagram is not an error for the
    // sender (unix_dgram_sendmsg).
    let Some(keep) = super::filter::datagram(&target, data, None) else { return Ok(data.len()) };
    let data_len = data.len();
    let data = &data[..keep];
    let from = sock.local.lock().clone().unwrap_or(SockAddr::Unix(UnixAddr::Unnamed));
    let mut pending = Some(Datagram { from, data: MsgBuf::copy_of(data)?, info: None });
    let mut put = || match queue.push(pending.take()?) {
        Ok(()) => Some(()),
        Err(d) => {
            pending = Some(d);
            None
        }
    };
    if nonblock {
        put().ok_or(EAGAIN)?;
    } else {
        target.waiters.wait_until(super::timeo::send_deadline(sock), put).map_err(wait_errno)?;
    }
    target.changed();
    Ok(data_len)
}
