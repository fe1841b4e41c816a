//! connect(2): a stream socket to a listener (TCP on loopback, AF_UNIX),
//! or a datagram socket's default peer.
//!
//! A loopback TCP connection is made at once, but a non-blocking connect
//! still answers EINPROGRESS, as Linux does, and a refusal shows up as
//! SO_ERROR = ECONNREFUSED (with EPOLLERR|EPOLLHUP): Go's dialer waits for
//! writability and reads SO_ERROR either way. AF_UNIX connects are
//! synchronous on Linux too: the errno comes from connect itself.

use super::socket::{read_addr, socket_of};
use super::SysResult;
use crate::fs::fd::Fd;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::net::socket::State;
use crate::net::stream::connect_to;
use crate::net::{inet, unixns, Family, SockType, Socket};
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use gometal_core::linux::errno::*;
use gometal_core::linux::sockaddr::{InetAddr, SockAddr, UnixAddr};

pub fn connect(user: &mut UserSpace, fd: Fd, addr: UserPtr<u8>, len: u32) -> SysResult {
    if let Some((_, nl)) = super::netlink::of(fd) {
        return super::netlink::connect(user, &nl, addr, len);
    }
    let (file, sock) = socket_of(fd)?;
    let to = read_addr(user, addr, len)?;
    match sock.ty {
        SockType::Dgram => connect_dgram(&sock, to),
        SockType::Stream | SockType::SeqPacket => {
            // The connect after an EINPROGRESS reports the outcome: 0 once
            // connected (EISCONN only after that), or the error.
            if sock.connecting.swap(false, Ordering::AcqRel) {
                return match sock.take_error() {
                    Some(e) => Err(e),
                    None => Ok(0),
                };
            }
            match &*sock.state.lock() {
                State::Connected(_) => return Err(EISCONN),
                State::Listening(_) => return Err(EINVAL),
                State::Idle => {}
            }
            match (to, sock.family) {
                (SockAddr::Unix(name), Family::Unix) => connect_unix(&sock, &name, file.nonblocking()),
                (SockAddr::Inet(a), Family::Inet4 | Family::Inet6) => connect_tcp(&sock, a, file.nonblocking()),
                (_, Family::Unix) => Err(EINVAL),
                _ => Err(EAFNOSUPPORT),
            }
        }
    }
}

/// The address a connection to `to` reaches (an unspecified destination
/// is this host's loopback), written in `family`'s form.
fn reached(to: InetAddr, v6: bool) -> InetAddr {
    let ip = match (to.is_unspecified(), to.is_v4()) {
        (false, _) => to.ip,
        (true, true) => InetAddr::v4([127, 0, 0, 1], 0).ip,
        (true, false) => InetAddr::V6_LOOPBACK,
    };
    InetAddr { ip, v6, ..to }
}

fn connect_tcp(sock: &Arc<Socket>, to: InetAddr, nonblock: bool) -> SysResult {
    if crate::net::nic::routes(&to) {
        return crate::net::nic::connect(sock, to, nonblock); // over the network device
    }
    let local = inet::autobind(sock, to, true)?;
    let dst = reached(to, to.v6);
    let outcome = match inet::find_listener(&dst, Some(&local)) {
        None => Err(ECONNREFUSED),
        Some(server) => {
            let server_v6 = server.family == Family::Inet6;
            let client_addr = SockAddr::Inet(local.as_family(server_v6));
            let server_addr = SockAddr::Inet(dst.as_family(server_v6));
            *sock.peer.lock() = Some(SockAddr::Inet(dst));
            // A full queue (SOMAXCONN waiting) is a refusal here.
            connect_to(sock, &server, client_addr, server_addr).map_err(|e| if e == EAGAIN { ECONNREFUSED } else { e })
        }
    };
    if nonblock {
        sock.connecting.store(true, Ordering::Release);
    }
    match outcome {
        Ok(()) if nonblock => Err(EINPROGRESS),
        Ok(()) => Ok(0),
        Err(e) if nonblock => {
            *sock.peer.lock() = None;
            sock.set_error(e);
            Err(EINPROGRESS)
        }
        Err(e) => {
            *sock.peer.lock() = None;
            Err(e)
        }
    }
}

fn connect_unix(sock: &Arc<Socket>, name: &UnixAddr, nonblock: bool) -> SysResult {
    let server = unixns::find(name)?;
    if server.ty != sock.ty {
        return Err(EPROTOTYPE);
    }
    let client_addr = sock.local_addr();
    let server_addr = server.local_addr();
    *sock.peer.lock() = Some(server_addr.clone());
    let attempt = || match connect_to(sock, &server, client_addr.clone(), server_addr.clone()) {
        Err(EAGAIN) => None,
        r => Some(r),
    };
    let r = if nonblock {
        attempt().unwrap_or(Err(EAGAIN))
    } else {
        // Wait for the listener's queue to have room (accept frees it),
        // no longer than SO_SNDTIMEO (then EAGAIN, as on Linux).
        let deadline = crate::net::timeo::send_deadline(sock);
        server.waiters.wait_until(deadline, attempt).map_err(crate::fs::pipe::wait_errno).and_then(|r| r)
    };
    if r.is_err() {
        *sock.peer.lock() = None;
    }
    r.map(|_| 0)
}

fn connect_dgram(sock: &Arc<Socket>, to: SockAddr) -> SysResult {
    match (to, sock.family) {
        (SockAddr::Unspec, _) => {
            *sock.peer.lock() = None;
            *sock.dgram_peer.lock() = None;
        }
        (SockAddr::Unix(name), Family::Unix) => {
            let peer = unixns::find(&name)?;
            if peer.ty != SockType::Dgram {
                return Err(EPROTOTYPE);
            }
            *sock.dgram_peer.lock() = Some(Arc::downgrade(&peer));
            *sock.peer.lock() = Some(peer.local_addr());
        }
        (SockAddr::Inet(a), Family::Inet4 | Family::Inet6) => {
            if sock.icmp != Some(crate::net::socket::Icmp::Raw) {
                inet::autobind(sock, a, true)?; // a raw socket has no port
            }
            *sock.peer.lock() = Some(SockAddr::Inet(reached(a, a.v6)));
            sock.take_error();
        }
        (_, Family::Unix) => return Err(EINVAL),
        _ => return Err(EAFNOSUPPORT),
    }
    sock.changed();
    Ok(0)
}
