//! Raw IP sockets in smoltcp, one per protocol the kernel handles itself
//! (UDP, ICMP): smoltcp hands every received packet of that protocol to
//! the socket, header and all, and sends the packets the kernel builds,
//! resolving the next hop's Ethernet address first. So datagram sockets
//! need no smoltcp socket of their own (and smoltcp no per-packet scan of
//! one per port): udp.rs and icmp.rs find the program's socket in the
//! kernel's own tables (net/inet.rs).

use alloc::vec::Vec;
use gometal_core::linux::errno::{Errno, EMSGSIZE, ENETUNREACH, ENOBUFS};
use gometal_core::linux::sockaddr::InetAddr;
use smoltcp::iface::{SocketHandle, SocketSet};
use smoltcp::phy::ChecksumCapabilities;
use smoltcp::socket::raw;
use smoltcp::wire::{IpAddress, IpProtocol, IpVersion, Ipv4Address, Ipv4Packet, Ipv4Repr, Ipv6Address, Ipv6Packet, Ipv6Repr};

/// Packets (and bytes) queued each way: the pump drains the receive side
/// after at most `device::QUEUE` frames, so it never overflows.
const PACKETS: usize = 128;
const BYTES: usize = 192 * 1024;
/// The largest IPv4 packet sent: the Ethernet MTU (smoltcp is built
/// without fragmentation).
pub const MTU: usize = 1500;
const HOP_LIMIT: u8 = 64;

fn zeroed(n: usize) -> Option<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).ok()?;
    v.resize(n, 0);
    Some(v)
}

fn packet_buffer() -> Option<raw::PacketBuffer<'static>> {
    let mut meta = Vec::new();
    meta.try_reserve_exact(PACKETS).ok()?;
    meta.resize(PACKETS, raw::PacketMetadata::EMPTY);
    Some(raw::PacketBuffer::new(meta, zeroed(BYTES)?))
}

/// The raw sockets of one protocol, one per IP version (None where the heap
/// had no room for its buffers at boot).
pub struct RawPair {
    v4: Option<SocketHandle>,
    v6: Option<SocketHandle>,
}

impl RawPair {
    pub fn new(sockets: &mut SocketSet<'static>, proto4: IpProtocol, proto6: IpProtocol) -> RawPair {
        RawPair { v4: raw(sockets, IpVersion::Ipv4, proto4), v6: raw(sockets, IpVersion::Ipv6, proto6) }
    }

    /// The socket that sends over IPv4 (`v4`) or IPv6.
    pub fn handle(&self, v4: bool) -> Option<SocketHandle> {
        if v4 { self.v4 } else { self.v6 }
    }

    /// Passes every packet received, well-formed and addressed to us, to
    /// `f` as (source, destination, payload); true if any packet arrived.
    pub fn drain(&self, sockets: &mut SocketSet<'static>, mut f: impl FnMut(IpAddress, IpAddress, &[u8])) -> bool {
        self.drain_with_header(sockets, |src, dst, payload, _| f(src, dst, payload))
    }

    /// `drain`, also passing each packet's (TOS or traffic class, TTL or
    /// hop limit), which UDP's control messages report.
    pub fn drain_with_header(&self, sockets: &mut SocketSet<'static>, mut f: impl FnMut(IpAddress, IpAddress, &[u8], (u8, u8))) -> bool {
        let mut any = false;
        for h in [self.v4, self.v6].into_iter().flatten() {
            let s = sockets.get_mut::<raw::Socket>(h);
            while let Ok(packet) = s.recv() {
                any = true;
                let parsed = match IpVersion::of_packet(packet) {
                    Ok(IpVersion::Ipv4) => parse_v4(packet).map(|(r, p)| (IpAddress::Ipv4(r.src_addr), IpAddress::Ipv4(r.dst_addr), p)),
                    Ok(IpVersion::Ipv6) => parse_v6(packet).map(|(r, p)| (IpAddress::Ipv6(r.src_addr), IpAddress::Ipv6(r.dst_addr), p)),
                    Err(_) => None,
                };
                if let Some((src, dst, payload)) = parsed {
                    f(src, dst, payload, header_marks(packet));
                }
            }
        }
        any
    }
}

/// (TOS, TTL) of an IPv4 packet, (traffic class, hop limit) of an IPv6 one.
fn header_marks(packet: &[u8]) -> (u8, u8) {
    match (packet.first().map(|b| b >> 4), packet.len()) {
        (Some(4), n) if n >= 20 => (packet[1], packet[8]),
        (Some(6), n) if n >= 40 => ((packet[0] << 4) | (packet[1] >> 4), packet[7]),
        _ => (0, 0),
    }
}

/// A raw socket for `proto` over IP `version` in `sockets`; None when the
/// heap is out.
pub fn raw(sockets: &mut SocketSet<'static>, version: IpVersion, proto: IpProtocol) -> Option<SocketHandle> {
    let s = raw::Socket::new(Some(version), Some(proto), packet_buffer()?, packet_buffer()?);
    Some(sockets.add(s))
}

/// Sends a `len`-byte payload of protocol `proto` that `fill` writes, from
/// `src` to `dst` (one family), on the raw socket of `pair` (which picks
/// udp's or icmp's pair; both live in socket set 0). A full queue gets one
/// poll to drain into the device before the packet is tried again; then
/// ENOBUFS. The NIC sends it at once.
pub fn send(pair: fn(&super::Nic) -> &RawPair, src: &InetAddr, dst: &InetAddr, proto: IpProtocol, len: usize, fill: impl Fn(&mut [u8])) -> Result<(), Errno> {
    if src.is_v4() != dst.is_v4() {
        return Err(ENETUNREACH);
    }
    let v4 = dst.is_v4();
    let ip4 = |a: &InetAddr| -> [u8; 4] { a.ip[12..].try_into().unwrap_or([0; 4]) };
    let mut guard = super::NIC.lock();
    let nic = guard.as_mut().ok_or(ENETUNREACH)?;
    let h = pair(nic).handle(v4).ok_or(ENETUNREACH)?;
    let mut r = Err(ENOBUFS);
    for attempt in 0..2 {
        if attempt == 1 {
            super::shard::mark(0); // the raw sockets' set
            super::poll::poll(nic); // the queue drains into the device; try once more
        }
        let mut first = super::shard::set(0).lock();
        let s = first.sockets.get_mut::<raw::Socket>(h);
        r = if v4 { send_v4(s, ip4(src), ip4(dst), proto, len, &fill) } else { send_v6(s, src.ip, dst.ip, proto, len, &fill) };
        drop(first);
        if r != Err(ENOBUFS) {
            break;
        }
    }
    drop(guard);
    super::shard::mark(0);
    super::poll_soon(); // sends it, and what others asked for meanwhile
    r
}

/// Queues an IPv4 packet from `src` to `dst` whose `len`-byte payload
/// `fill` writes. EMSGSIZE past the MTU, ENOBUFS when the queue is full.
pub fn send_v4(s: &mut raw::Socket, src: [u8; 4], dst: [u8; 4], proto: IpProtocol, len: usize, fill: impl FnOnce(&mut [u8])) -> Result<(), Errno> {
    let repr = Ipv4Repr {
        src_addr: Ipv4Address::from(src),
        dst_addr: Ipv4Address::from(dst),
        next_header: proto,
        payload_len: len,
        hop_limit: HOP_LIMIT,
    };
    let total = repr.buffer_len() + len;
    if total > MTU {
        return Err(EMSGSIZE);
    }
    let buf = s.send(total).map_err(|_| ENOBUFS)?;
    let mut packet = Ipv4Packet::new_unchecked(&mut buf[..]);
    repr.emit(&mut packet, &ChecksumCapabilities::default());
    fill(&mut buf[repr.buffer_len()..]);
    Ok(())
}

/// A received IPv4 packet's addresses and payload, if it is well formed,
/// whole (not a fragment) and addressed to us (or broadcast).
pub fn parse_v4(packet: &[u8]) -> Option<(Ipv4Repr, &[u8])> {
    let p = Ipv4Packet::new_checked(packet).ok()?;
    if p.more_frags() || p.frag_offset() != 0 {
        return None; // no reassembly (smoltcp is built without it)
    }
    let repr = Ipv4Repr::parse(&p, &ChecksumCapabilities::default()).ok()?;
    let dst = repr.dst_addr.octets();
    if dst != super::addr::v4() && !repr.dst_addr.is_broadcast() {
        return None;
    }
    let header = p.header_len() as usize;
    Some((repr, packet.get(header..header + repr.payload_len)?))
}

/// `send_v4` for IPv6.
pub fn send_v6(s: &mut raw::Socket, src: [u8; 16], dst: [u8; 16], proto: IpProtocol, len: usize, fill: impl FnOnce(&mut [u8])) -> Result<(), Errno> {
    let repr = Ipv6Repr {
        src_addr: Ipv6Address::from(src),
        dst_addr: Ipv6Address::from(dst),
        next_header: proto,
        payload_len: len,
        hop_limit: HOP_LIMIT,
    };
    let total = repr.buffer_len() + len;
    if total > MTU {
        return Err(EMSGSIZE);
    }
    let buf = s.send(total).map_err(|_| ENOBUFS)?;
    repr.emit(&mut Ipv6Packet::new_unchecked(&mut buf[..]));
    fill(&mut buf[repr.buffer_len()..]);
    Ok(())
}

/// `parse_v4` for IPv6 (a packet to fec0::15).
pub fn parse_v6(packet: &[u8]) -> Option<(Ipv6Repr, &[u8])> {
    let p = Ipv6Packet::new_checked(packet).ok()?;
    let repr = Ipv6Repr::parse(&p).ok()?;
    if repr.dst_addr.octets() != super::addr::ADDR6 {
        return None;
    }
    let header = repr.buffer_len();
    Some((repr, packet.get(header..header + repr.payload_len)?))
}
