//! ICMP through the NIC, for IPv4: every ICMP packet that arrives is
//! passed to net/ping.rs (ping and raw ICMP sockets), and echo requests
//! those sockets send leave through one raw smoltcp socket (ip.rs).
//! smoltcp itself answers echo requests sent to 10.0.2.15. A "port
//! unreachable" about a datagram a connected UDP socket sent becomes that
//! socket's ECONNREFUSED, as on Linux (slirp sends one when the host
//! refuses the datagram).

use super::ip;
use gometal_core::errno::{Errno, ENETUNREACH, ENOBUFS};
use gometal_core::icmp;
use gometal_core::sockaddr::{InetAddr, SockAddr};
use smoltcp::iface::{SocketHandle, SocketSet};
use smoltcp::socket::raw;
use smoltcp::wire::{IpProtocol, IpVersion};

pub struct Icmp {
    /// None when the heap had no room for the socket's buffers at boot.
    v4: Option<SocketHandle>,
}

impl Icmp {
    pub fn new(sockets: &mut SocketSet<'static>) -> Icmp {
        Icmp { v4: ip::raw(sockets, IpVersion::Ipv4, IpProtocol::Icmp) }
    }

    /// Hands the ICMP messages that arrived on; true if any did.
    pub fn step(&mut self, sockets: &mut SocketSet<'static>) -> bool {
        let Some(h) = self.v4 else { return false };
        let s = sockets.get_mut::<raw::Socket>(h);
        let mut any = false;
        while let Ok(packet) = s.recv() {
            any = true;
            let Some((repr, msg)) = ip::parse_v4(packet) else { continue };
            if msg.len() < icmp::HEADER || !icmp::checksum_ok(msg) {
                continue;
            }
            let from = InetAddr::v4(repr.src_addr.octets(), 0);
            let to = InetAddr::v4(repr.dst_addr.octets(), 0);
            if msg[0] == icmp::DEST_UNREACHABLE && msg[1] == 3 {
                port_unreachable(&msg[icmp::HEADER..]);
            }
            crate::net::ping::arrived(from, to, msg);
        }
        any
    }
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
    let Some(sock) = crate::net::inet::find_udp(ours) else { return };
    let connected_there = matches!(&*sock.peer.lock(), Some(SockAddr::Inet(p)) if p.ip == theirs.ip && p.port == theirs.port);
    if connected_there {
        sock.set_error(gometal_core::errno::ECONNREFUSED);
    }
}

/// Sends the ICMP message `msg` from `src` to `dst`.
pub fn send(src: [u8; 4], dst: [u8; 4], msg: &[u8]) -> Result<(), Errno> {
    let mut guard = super::NIC.lock();
    let nic = guard.as_mut().ok_or(ENETUNREACH)?;
    let h = nic.icmp.v4.ok_or(ENETUNREACH)?;
    let fill = |buf: &mut [u8]| buf.copy_from_slice(msg);
    let mut r = ip::send_v4(nic.sockets.get_mut::<raw::Socket>(h), src, dst, IpProtocol::Icmp, msg.len(), fill);
    if r == Err(ENOBUFS) {
        super::poll(nic);
        r = ip::send_v4(nic.sockets.get_mut::<raw::Socket>(h), src, dst, IpProtocol::Icmp, msg.len(), fill);
    }
    super::poll(nic);
    r
}
