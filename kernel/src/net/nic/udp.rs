//! UDP through the NIC. Datagrams of every port arrive on one raw socket
//! per IP version (ip.rs); each goes, checksum checked, onto the queue of
//! the program's UDP socket that holds its port (net/inet.rs), exactly as
//! a datagram from loopback does (net/dgram.rs), so receive, epoll and
//! timeouts are the same code. A datagram to a port nobody holds is
//! dropped (no ICMP port unreachable is sent back). Sending builds the IP
//! and UDP headers here and queues the packet on the raw socket; smoltcp
//! resolves the next hop's Ethernet address (ARP, NDP) and sends it.

use super::ip;
use gometal_core::linux::errno::Errno;
use gometal_core::linux::sockaddr::InetAddr;
use smoltcp::iface::SocketSet;
use smoltcp::phy::ChecksumCapabilities;
use smoltcp::wire::{IpAddress, IpProtocol, UdpPacket, UdpRepr};

const HEADER: usize = 8;

pub struct Udp(ip::RawPair);

impl Udp {
    pub fn new(sockets: &mut SocketSet<'static>) -> Udp {
        Udp(ip::RawPair::new(sockets, IpProtocol::Udp, IpProtocol::Udp))
    }

    /// Hands the datagrams that arrived to their sockets; true if any did.
    pub fn step(&mut self, sockets: &mut SocketSet<'static>) -> bool {
        self.0.drain_with_header(sockets, deliver)
    }
}

/// Passes one received UDP packet (`payload` of an IP packet from `src`
/// to `dst`) to the socket holding its port.
fn deliver(src: IpAddress, dst: IpAddress, payload: &[u8], (tos, ttl): (u8, u8)) {
    let Ok(udp) = UdpPacket::new_checked(payload) else { return };
    let Ok(ports) = UdpRepr::parse(&udp, &src, &dst, &ChecksumCapabilities::default()) else { return };
    let from = super::addr::inet_of((src, ports.src_port).into());
    let to = super::addr::inet_of((dst, ports.dst_port).into());
    if let Some(target) = crate::net::inet::find_udp(to, Some(&from)) {
        let info = gometal_core::linux::cmsg::PacketInfo { dst: to.ip, v4: to.is_v4(), ifindex: crate::net::ifaces::ETH_INDEX, tos, ttl };
        crate::net::dgram::deliver(&target, from, udp.payload(), info);
    }
}

/// Sends `data` from `from` (our address and the socket's port) to `to`.
/// EMSGSIZE for a datagram that does not fit one frame, ENOBUFS when the
/// transmit queue is full.
pub fn send(from: InetAddr, to: InetAddr, data: &[u8]) -> Result<(), Errno> {
    let (src, dst) = (super::addr::endpoint_of(&from), super::addr::endpoint_of(&to));
    let ports = UdpRepr { src_port: from.port, dst_port: to.port };
    let fill = |buf: &mut [u8]| {
        let mut p = UdpPacket::new_unchecked(buf);
        ports.emit(&mut p, &src.addr, &dst.addr, data.len(), |b| b.copy_from_slice(data), &ChecksumCapabilities::default());
    };
    ip::send(|nic| &nic.udp.0, &from, &to, IpProtocol::Udp, HEADER + data.len(), fill)
}
