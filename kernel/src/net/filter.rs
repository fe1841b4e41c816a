//! Classic BPF socket filters on receive (SO_ATTACH_FILTER; the program
//! is checked and run by kernel/core's cbpf.rs and cbpfrun.rs). As Linux's
//! sk_filter_trim_cap: a datagram the filter returns 0 for is dropped
//! before it is queued, and one it returns less than the datagram's
//! length for is cut to that length (never below the header the filter
//! saw in front of the payload: UDP's 8 bytes). Applied to UDP and ICMP
//! datagrams and AF_UNIX datagrams (not AF_UNIX seqpacket, whose messages
//! travel a pipe). A TCP socket keeps its filter (SO_GET_FILTER, inherited
//! by accepted sockets) but it is never run: loopback TCP has no segments
//! (a connection is two pipes), and on the network device segments are
//! smoltcp's, which reassembles the stream before the kernel sees it; Linux
//! runs it on each segment, where dropping one makes the peer send it again.

use super::socket::Socket;
use gometal_core::net::cbpfrun::{self, Facts, Packet};
use gometal_core::linux::cmsg::PacketInfo;
use gometal_core::linux::sockaddr::InetAddr;

/// ETH_P_IP, ETH_P_IPV6; ARPHRD_LOOPBACK, ARPHRD_ETHER.
const ETH_P_IP: u16 = 0x0800;
const ETH_P_IPV6: u16 = 0x86dd;
const ARPHRD_LOOPBACK: u32 = 772;
const ARPHRD_ETHER: u32 = 1;

fn random_u32() -> u32 {
    let mut b = [0u8; 4];
    crate::random::fill(&mut b);
    u32::from_le_bytes(b)
}

fn facts(protocol: u16, device: Option<u32>) -> Facts {
    let hatype = |i| if i == super::ifaces::LOOPBACK_INDEX { ARPHRD_LOOPBACK } else { ARPHRD_ETHER };
    Facts { protocol, pkt_type: 0, device: device.map(|i| (i, hatype(i))), cpu: crate::sched::cpu::this_cpu().index() as u32, random: random_u32 }
}

/// How much of a UDP datagram `payload` from `from` the socket's filter
/// lets in: Some(bytes of payload) or None (dropped). No filter: all.
pub fn udp(target: &Socket, from: &InetAddr, to_port: u16, payload: &[u8], info: &PacketInfo) -> Option<usize> {
    let Some(f) = target.opts.lock().filter.clone() else { return Some(payload.len()) };
    let net = cbpfrun::udp_packet(info.v4, &from.ip, &info.dst, (from.port, to_port), info.tos, info.ttl, payload);
    let udp_at = net.len() - payload.len() - 8;
    let pkt = Packet { data: &net[udp_at..], net: &net };
    let keep = cbpfrun::run(&f, &pkt, &facts(if info.v4 { ETH_P_IP } else { ETH_P_IPV6 }, Some(info.ifindex)));
    trim(keep, 8, payload.len())
}

/// The same for an ICMP socket's message (over IPv4 raw sockets it starts
/// with the IP header, which is then also the network header) or an
/// AF_UNIX datagram (`inet` false: no device, protocol 0).
pub fn datagram(target: &Socket, data: &[u8], inet: Option<(bool, u32)>) -> Option<usize> {
    let Some(f) = target.opts.lock().filter.clone() else { return Some(data.len()) };
    let (protocol, device, net): (u16, Option<u32>, &[u8]) = match inet {
        Some((true, ifindex)) if data.first().is_some_and(|b| b >> 4 == 4) => (ETH_P_IP, Some(ifindex), data),
        Some((v4, ifindex)) => (if v4 { ETH_P_IP } else { ETH_P_IPV6 }, Some(ifindex), &[]),
        None => (0, None, &[]),
    };
    let keep = cbpfrun::run(&f, &Packet { data, net }, &facts(protocol, device));
    trim(keep, 1, data.len())
}

/// sk_filter_trim_cap: 0 drops; otherwise keep at least `cap` bytes of
/// what the filter saw, of which the first `cap` of a UDP datagram are
/// its header (so the payload kept is what is left after them).
fn trim(keep: u32, cap: usize, payload: usize) -> Option<usize> {
    if keep == 0 {
        return None;
    }
    let keep = (keep as usize).max(cap);
    Some(if cap == 8 { keep.saturating_sub(8).min(payload) } else { keep.min(payload) })
}
