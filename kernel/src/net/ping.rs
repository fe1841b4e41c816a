//! ICMP sockets for IPv4. A ping socket (socket(AF_INET, SOCK_DGRAM,
//! IPPROTO_ICMP), Linux's net/ipv4/ping.c) sends echo requests: the kernel
//! writes the identifier (the socket's "port", held in inet.rs's ICMP
//! table) and the checksum, and the socket receives the echo replies that
//! carry its identifier, from the address they came from with port 0. A
//! raw ICMP socket (SOCK_RAW, what Go's net.ListenPacket("ip4:icmp") opens)
//! sends the message as the program wrote it and receives every ICMP
//! packet, IPv4 header included.
//!
//! Linux lets only groups in net.ipv4.ping_group_range open ping sockets,
//! and only CAP_NET_RAW raw ones. Programs on gometal run as root, and the
//! range reads "0 2147483647" (systemd's setting, which most distributions
//! ship; the kernel's own default "1 0" admits nobody, root included), so
//! both are open to every program.
//!
//! Echo requests to a local address (loopback, our own 10.0.2.15) are
//! answered here, as Linux's loopback answers them; others go out through
//! the network device (nic/icmp.rs), which brings the replies back.

use super::dgram::{queue_datagram, MAX_UDP};
use super::socket::{Icmp, Socket};
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use gometal_core::errno::*;
use gometal_core::icmp;
use gometal_core::sockaddr::{InetAddr, SockAddr};
use spin::Mutex;

const IPPROTO_ICMP: u8 = 1;

/// Every open raw ICMP socket (they are not bound to a port).
static RAW: Mutex<Vec<Weak<Socket>>> = Mutex::new(Vec::new());

/// Registers a new raw ICMP socket.
pub fn add_raw(sock: &Arc<Socket>) -> Result<(), Errno> {
    let mut raw = RAW.lock();
    raw.retain(|w| w.strong_count() > 0);
    raw.try_reserve(1).map_err(|_| ENOBUFS)?;
    raw.push(Arc::downgrade(sock));
    Ok(())
}

/// bind(2) on a raw socket: only the local address (there is no port).
pub fn bind_raw(sock: &Socket, addr: InetAddr) -> Result<(), Errno> {
    if !addr.is_v4() {
        return Err(EAFNOSUPPORT);
    }
    if !(addr.is_unspecified() || addr.is_loopback() || super::nic::is_own(&addr)) {
        return Err(EADDRNOTAVAIL);
    }
    *sock.local.lock() = Some(SockAddr::Inet(addr.with_port(0)));
    Ok(())
}

fn ip4(a: &InetAddr) -> [u8; 4] {
    a.ip[12..].try_into().unwrap_or([0; 4])
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
    if !to.is_v4() {
        return Err(EAFNOSUPPORT);
    }
    let mut msg = Vec::new();
    msg.try_reserve_exact(data.len()).map_err(|_| ENOBUFS)?;
    msg.extend_from_slice(data);
    let raw = sock.icmp == Some(Icmp::Raw);
    let src = if raw {
        let routed = super::nic::routes(&to);
        if !routed && !(to.is_unspecified() || to.is_loopback() || super::nic::is_own(&to)) {
            return Err(ENETUNREACH);
        }
        InetAddr::v4(super::nic::source_v4(&to), 0)
    } else {
        let from = super::inet::autobind(sock, to, false)?;
        icmp::prepare_request(&mut msg, from.port)?;
        from
    };
    if super::nic::routes(&to) {
        super::nic::icmp::send(ip4(&src), ip4(&to), &msg)?;
    } else {
        // A local destination: the packet "arrives" here; raw sockets see
        // it, and an echo request is answered at once.
        let dst = InetAddr::v4(if to.is_unspecified() { [127, 0, 0, 1] } else { ip4(&to) }, 0);
        arrived(src, dst, &msg);
        if msg.len() >= icmp::HEADER && msg[0] == icmp::ECHO_REQUEST && icmp::checksum_ok(&msg) {
            icmp::into_reply(&mut msg);
            arrived(dst, src, &msg);
        }
    }
    Ok(data.len())
}

/// An ICMP message from `from` to `to` (our address) arrived (from the
/// network device, or sent locally): every raw socket gets it with its
/// IPv4 header, and an echo reply goes to the ping socket it is for.
pub fn arrived(from: InetAddr, to: InetAddr, msg: &[u8]) {
    let raw: Vec<Arc<Socket>> = RAW.lock().iter().filter_map(|w| w.upgrade()).collect();
    let from = from.with_port(0);
    if !raw.is_empty() {
        let header = icmp::ipv4_header(ip4(&from), ip4(&to), IPPROTO_ICMP, msg.len());
        let mut packet = Vec::new();
        if packet.try_reserve_exact(header.len() + msg.len()).is_ok() {
            packet.extend_from_slice(&header);
            packet.extend_from_slice(msg);
            for s in &raw {
                if takes(s, &from, &to) {
                    queue_datagram(s, SockAddr::Inet(from), &packet);
                }
            }
        }
    }
    let Some(ident) = icmp::reply_ident(msg) else { return };
    if let Some(s) = super::inet::find_ping(to, ident) {
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
