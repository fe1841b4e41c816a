//! ICMP sockets. A ping socket (socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP),
//! or AF_INET6 with IPPROTO_ICMPV6; Linux's net/ipv4/ping.c) sends echo
//! requests: the kernel writes the identifier (the socket's "port", held
//! in inet.rs's ICMP table) and the checksum, and the socket receives the
//! echo replies that carry its identifier, from the address they came from
//! with port 0. A raw ICMP socket (SOCK_RAW, what Go's
//! net.ListenPacket("ip4:icmp") and ("ip6:ipv6-icmp") open) sends the
//! message as the program wrote it (over IPv6 the kernel writes the
//! checksum, as Linux does) and receives every ICMP message, over IPv4
//! with its IP header, over IPv6 without.
//!
//! Linux lets only groups in net.ipv4.ping_group_range open ping sockets,
//! and only CAP_NET_RAW raw ones. Programs on gometal run as root, and the
//! range reads "0 2147483647" (systemd's setting, which most distributions
//! ship; the kernel's own default "1 0" admits nobody, root included), so
//! both are open to every program.
//!
//! Echo requests to a local address (loopback, our own 10.0.2.15 and
//! fec0::15) are answered here, as Linux's loopback answers them; others
//! go out through the network device (nic/icmp.rs), which brings the
//! replies back.

use super::dgram::{queue_datagram, MAX_UDP};
use super::socket::{Family, Icmp, Socket};
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use gometal_core::linux::errno::*;
use gometal_core::net::icmp::{self, V6Pair};
use gometal_core::linux::sockaddr::{InetAddr, SockAddr};
use crate::sync::{Lock, LockClass};

const IPPROTO_ICMP: u8 = 1;

/// Every open raw ICMP socket (they are not bound to a port).
static RAW: Lock<Vec<Weak<Socket>>> = Lock::new(LockClass::RawSockets, Vec::new());

/// Registers a new raw ICMP socket.
pub fn add_raw(sock: &Arc<Socket>) -> Result<(), Errno> {
    let mut raw = RAW.lock();
    raw.retain(|w| w.strong_count() > 0);
    raw.try_reserve(1).map_err(|_| ENOBUFS)?;
    raw.push(Arc::downgrade(sock));
    Ok(())
}

fn is_local(a: &InetAddr) -> bool {
    a.is_unspecified() || a.is_loopback() || super::nic::is_own(a)
}

/// bind(2) on a raw socket: only the local address (there is no port).
pub fn bind_raw(sock: &Socket, addr: InetAddr) -> Result<(), Errno> {
    if (sock.family == Family::Inet6) != addr.v6 || (sock.family == Family::Inet6) == addr.is_v4() {
        return Err(EAFNOSUPPORT);
    }
    if !is_local(&addr) {
        return Err(EADDRNOTAVAIL);
    }
    *sock.local.lock() = Some(SockAddr::Inet(addr.with_port(0)));
    Ok(())
}

fn ip4(a: &InetAddr) -> [u8; 4] {
    a.ip[12..].try_into().unwrap_or([0; 4])
}

/// The pseudo-header addresses of an ICMPv6 message from `src` to `dst`.
fn pair(src: &InetAddr, dst: &InetAddr) -> V6Pair {
    (!dst.is_v4()).then_some((src.ip, dst.ip))
}

/// sendto/send on an ICMP socket: `data` is an ICMP message.
pub fn send(sock: &Arc<Socket>, data: &[u8], dest: Option<SockAddr>) -> Result<usize, Errno> {
    if data.len() > MAX_UDP {
        return Err(EMSGSIZE);
    }
    let connected = sock.peer.lock().clone();
    let Some(SockAddr::Inet(to)) = dest.or(connected.clone()) else {
        return Err(if connected.is_none() { EDESTADDRREQ } else { EAFNOSUPPORT });
    };
    // An ICMPv6 socket cannot reach an IPv4(-mapped) address, nor the reverse.
    if (sock.family == Family::Inet6) == to.is_v4() || (sock.family == Family::Inet6) != to.v6 {
        return Err(if sock.family == Family::Inet6 { EINVAL } else { EAFNOSUPPORT });
    }
    let mut msg = Vec::new();
    msg.try_reserve_exact(data.len()).map_err(|_| ENOBUFS)?;
    msg.extend_from_slice(data);
    let routed = super::nic::routes(&to);
    if !routed && !is_local(&to) {
        return Err(ENETUNREACH);
    }
    let dst = match (to.is_unspecified(), to.is_v4()) {
        (false, _) => to.with_port(0),
        (true, true) => InetAddr::v4([127, 0, 0, 1], 0),
        (true, false) => InetAddr::v6(InetAddr::V6_LOOPBACK, 0),
    };
    let src = if sock.icmp == Some(Icmp::Raw) {
        let src = source(&dst);
        if !dst.is_v4() {
            icmp::seal(&mut msg, pair(&src, &dst));
        }
        src
    } else {
        let from = super::inet::autobind(sock, to, false)?;
        let src = source(&dst);
        icmp::prepare_request(&mut msg, from.port, pair(&src, &dst))?;
        src
    };
    if routed {
        super::nic::icmp::send(src, dst, &msg)?;
    } else {
        // A local destination: the packet "arrives" here; raw sockets see
        // it, and an echo request is answered at once.
        arrived(src, dst, &msg);
        if icmp::is_request(&msg, pair(&src, &dst)) {
            icmp::into_reply(&mut msg, pair(&dst, &src));
            arrived(dst, src, &msg);
        }
    }
    Ok(data.len())
}

/// The address a message to `dst` leaves from (no port).
fn source(dst: &InetAddr) -> InetAddr {
    if dst.is_v4() {
        InetAddr::v4(super::nic::source_v4(dst), 0)
    } else if dst.is_loopback() {
        InetAddr::v6(InetAddr::V6_LOOPBACK, 0)
    } else {
        super::nic::own_for(dst, 0)
    }
}

/// An ICMP message from `from` to `to` (our address) arrived (from the
/// network device, or sent locally): every raw socket of its family gets
/// it (over IPv4 with its header), and an echo reply goes to the ping
/// socket it is for.
pub fn arrived(from: InetAddr, to: InetAddr, msg: &[u8]) {
    let v6 = !to.is_v4();
    let family = if v6 { Family::Inet6 } else { Family::Inet4 };
    let as_seen = |a: InetAddr| InetAddr { v6, port: 0, ..a };
    let (from, to) = (as_seen(from), as_seen(to));
    let raw: Vec<Arc<Socket>> = RAW.lock().iter().filter_map(|w| w.upgrade()).filter(|s| s.family == family).collect();
    if !raw.is_empty() {
        let mut packet = Vec::new();
        let header = if v6 { None } else { Some(icmp::ipv4_header(ip4(&from), ip4(&to), IPPROTO_ICMP, msg.len())) };
        let len = header.map_or(0, |h| h.len()) + msg.len();
        if packet.try_reserve_exact(len).is_ok() {
            if let Some(h) = header {
                packet.extend_from_slice(&h);
            }
            packet.extend_from_slice(msg);
            for s in raw.iter().filter(|s| takes(s, &from, &to)) {
                queue_datagram(s, SockAddr::Inet(from), &packet);
            }
        }
    }
    let Some(ident) = icmp::reply_ident(msg, v6) else { return };
    if let Some(s) = super::inet::find_ping(to, ident).filter(|s| s.family == family) {
        if takes(&s, &from, &to) {
            queue_datagram(&s, SockAddr::Inet(from), msg);
        }
    }
}

/// Does `s` take a packet from `from` to `to`: its bound address (if
/// specific) is `to`, and its connected peer (if any) is `from`.
fn takes(s: &Socket, from: &InetAddr, to: &InetAddr) -> bool {
    if let Some(SockAddr::Inet(l)) = &*s.local.lock() {
        if !l.is_unspecified() && l.ip != to.ip {
            return false;
        }
    }
    match &*s.peer.lock() {
        Some(SockAddr::Inet(p)) => p.ip == from.ip,
        _ => true,
    }
}
