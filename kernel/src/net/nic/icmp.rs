//! ICMP through the NIC, over IPv4 and IPv6: every ICMP message that
//! arrives is passed to net/ping.rs (ping and raw ICMP sockets), and those
//! sockets' messages leave through one raw smoltcp socket per IP version
//! (ip.rs). smoltcp itself answers echo requests sent to 10.0.2.15 and
//! fec0::15, and does neighbour discovery. A "port unreachable" about a
//! datagram a connected UDP socket sent over IPv4 becomes that socket's
//! ECONNREFUSED, as on Linux (slirp sends one when the host refuses the
//! datagram).

use super::ip;
use gometal_core::linux::errno::Errno;
use gometal_core::net::icmp;
use gometal_core::linux::sockaddr::{InetAddr, SockAddr};
use smoltcp::iface::SocketSet;
use smoltcp::wire::{IpAddress, IpProtocol};

pub struct Icmp(ip::RawPair);

impl Icmp {
    pub fn new(sockets: &mut SocketSet<'static>) -> Icmp {
        Icmp(ip::RawPair::new(sockets, IpProtocol::Icmp, IpProtocol::Icmpv6))
    }

    /// Hands the ICMP messages that arrived on; true if any did.
    pub fn step(&mut self, sockets: &mut SocketSet<'static>) -> bool {
        self.0.drain(sockets, arrived)
    }
}

/// One ICMP message `msg` from `src` to `dst`: checked, then to the ping
/// and raw sockets (and a port unreachable to its UDP sender).
fn arrived(src: IpAddress, dst: IpAddress, msg: &[u8]) {
    let (from, to) = (super::addr::inet_of((src, 0).into()), super::addr::inet_of((dst, 0).into()));
    let v6 = (!to.is_v4()).then_some((from.ip, to.ip));
    if msg.len() < icmp::HEADER || !icmp::checksum_ok(msg, v6) {
        return;
    }
    if v6.is_none() && msg[0] == icmp::DEST_UNREACHABLE && msg[1] == 3 {
        port_unreachable(&msg[icmp::HEADER..]);
    }
    crate::net::ping::arrived(from, to, msg);
}

/// `inner` (the start of a datagram we sent) was refused: its connected
/// UDP sender learns ECONNREFUSED.
fn port_unreachable(inner: &[u8]) {
    let Some(&first) = inner.first() else { return };
    let ihl = ((first & 0xf) as usize) * 4;
    if inner.len() < ihl + 4 || ihl < 20 || inner[9] != 17 {
        return;
    }
    let ip4 = |at: usize| -> [u8; 4] { [inner[at], inner[at + 1], inner[at + 2], inner[at + 3]] };
    let port = |at: usize| u16::from_be_bytes([inner[at], inner[at + 1]]);
    let ours = InetAddr::v4(ip4(12), port(ihl));
    let theirs = InetAddr::v4(ip4(16), port(ihl + 2));
    let Some(sock) = crate::net::inet::find_udp(ours, None) else { return };
    let connected_there = matches!(&*sock.peer.lock(), Some(SockAddr::Inet(p)) if p.ip == theirs.ip && p.port == theirs.port);
    if connected_there {
        sock.set_error(gometal_core::linux::errno::ECONNREFUSED);
    }
}

/// Sends the ICMP message `msg` from `src` to `dst` (one family).
pub fn send(src: InetAddr, dst: InetAddr, msg: &[u8]) -> Result<(), Errno> {
    let proto = if dst.is_v4() { IpProtocol::Icmp } else { IpProtocol::Icmpv6 };
    ip::send(|nic| &nic.icmp.0, &src, &dst, proto, msg.len(), |buf| buf.copy_from_slice(msg))
}
