//! UDP through the NIC. Datagrams of every port arrive on one raw IPv4
//! socket (ip.rs); each goes, checksum checked, onto the queue of the
//! program's UDP socket that holds its port (net/inet.rs), exactly as a
//! datagram from loopback does (net/dgram.rs), so receive, epoll and
//! timeouts are the same code. A datagram to a port nobody holds is
//! dropped (no ICMP port unreachable is sent back). Sending builds the
//! IPv4 and UDP headers here and queues the packet on the raw socket;
//! smoltcp resolves the gateway's Ethernet address and sends it.

use super::ip;
use gometal_core::errno::{Errno, ENETUNREACH, ENOBUFS};
use gometal_core::sockaddr::InetAddr;
use smoltcp::iface::{SocketHandle, SocketSet};
use smoltcp::phy::ChecksumCapabilities;
use smoltcp::socket::raw;
use smoltcp::wire::{IpAddress, IpProtocol, Ipv4Address, UdpPacket, UdpRepr};

const HEADER: usize = 8;

pub struct Udp {
    /// None when the heap had no room for the socket's buffers at boot.
    v4: Option<SocketHandle>,
}

impl Udp {
    pub fn new(sockets: &mut SocketSet<'static>) -> Udp {
        Udp { v4: ip::raw_v4(sockets, IpProtocol::Udp) }
    }

    /// Hands the datagrams that arrived to their sockets; true if any did.
    pub fn step(&mut self, sockets: &mut SocketSet<'static>) -> bool {
        let Some(h) = self.v4 else { return false };
        let s = sockets.get_mut::<raw::Socket>(h);
        let mut any = false;
        while let Ok(packet) = s.recv() {
            any = true;
            let Some((repr, payload)) = ip::parse_v4(packet) else { continue };
            let Ok(udp) = UdpPacket::new_checked(payload) else { continue };
            let (src, dst) = (IpAddress::Ipv4(repr.src_addr), IpAddress::Ipv4(repr.dst_addr));
            let Ok(ports) = UdpRepr::parse(&udp, &src, &dst, &ChecksumCapabilities::default()) else { continue };
            let from = InetAddr::v4(repr.src_addr.octets(), ports.src_port);
            let to = InetAddr::v4(repr.dst_addr.octets(), ports.dst_port);
            if let Some(target) = crate::net::inet::find_udp(to) {
                crate::net::dgram::deliver(&target, from, udp.payload());
            }
        }
        any
    }
}

/// Sends `data` from `from` (our address and the socket's port) to `to`.
/// EMSGSIZE for a datagram that does not fit one frame, ENOBUFS when the
/// transmit queue is full.
pub fn send(from: InetAddr, to: InetAddr, data: &[u8]) -> Result<(), Errno> {
    let src: [u8; 4] = from.ip[12..].try_into().map_err(|_| ENETUNREACH)?;
    let dst: [u8; 4] = to.ip[12..].try_into().map_err(|_| ENETUNREACH)?;
    let mut guard = super::NIC.lock();
    let nic = guard.as_mut().ok_or(ENETUNREACH)?;
    let h = nic.udp.v4.ok_or(ENETUNREACH)?;
    let ports = UdpRepr { src_port: from.port, dst_port: to.port };
    let (s_ip, d_ip) = (IpAddress::Ipv4(Ipv4Address::from(src)), IpAddress::Ipv4(Ipv4Address::from(dst)));
    let fill = |buf: &mut [u8]| {
        let mut p = UdpPacket::new_unchecked(buf);
        ports.emit(&mut p, &s_ip, &d_ip, data.len(), |b| b.copy_from_slice(data), &ChecksumCapabilities::default());
    };
    let len = HEADER + data.len();
    let mut r = ip::send_v4(nic.sockets.get_mut::<raw::Socket>(h), src, dst, IpProtocol::Udp, len, fill);
    if r == Err(ENOBUFS) {
        super::poll(nic); // the queue drains into the device; try once more
        r = ip::send_v4(nic.sockets.get_mut::<raw::Socket>(h), src, dst, IpProtocol::Udp, len, fill);
    }
    super::poll(nic);
    r
}

