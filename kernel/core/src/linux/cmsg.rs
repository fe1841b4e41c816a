//! Ancillary data of datagram sockets (cmsg(3), ip(7), ipv6(7)): the
//! control messages recvmsg hands a UDP program that asked for them
//! (IP_PKTINFO, IP_RECVTTL, IP_RECVTOS, IPV6_RECVPKTINFO,
//! IPV6_RECVHOPLIMIT, IPV6_RECVTCLASS: DNS servers and QUIC use them),
//! laid out as Linux does on 64-bit machines, and the messages sendmsg may
//! carry.

use alloc::vec::Vec;

pub const SOL_IP: i32 = 0;
pub const SOL_IPV6: i32 = 41;
pub const IP_TOS: i32 = 1;
pub const IP_TTL: i32 = 2;
pub const IP_PKTINFO: i32 = 8;
pub const IP_RECVTTL: i32 = 12;
pub const IP_RECVTOS: i32 = 13;
pub const IPV6_RECVPKTINFO: i32 = 49;
pub const IPV6_PKTINFO: i32 = 50;
pub const IPV6_RECVHOPLIMIT: i32 = 51;
pub const IPV6_HOPLIMIT: i32 = 52;
pub const IPV6_RECVTCLASS: i32 = 66;
pub const IPV6_TCLASS: i32 = 67;

/// struct cmsghdr: len (8 bytes), level, type.
const HEADER: usize = 16;

fn align8(n: usize) -> usize {
    (n + 7) & !7
}

/// What the kernel knows of a received datagram's IP packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketInfo {
    /// The destination address, IPv4 as ::ffff:a.b.c.d.
    pub dst: [u8; 16],
    pub v4: bool,
    /// The interface it arrived on.
    pub ifindex: u32,
    /// IPv4's TOS byte or IPv6's traffic class.
    pub tos: u8,
    /// TTL or hop limit.
    pub ttl: u8,
}

/// Which control messages a socket asked for (its options).
#[derive(Clone, Copy, Debug, Default)]
pub struct Wants {
    pub ip_pktinfo: bool,
    pub ip_ttl: bool,
    pub ip_tos: bool,
    pub v6_pktinfo: bool,
    pub v6_hoplimit: bool,
    pub v6_tclass: bool,
}

fn push(out: &mut Vec<u8>, level: i32, kind: i32, data: &[u8]) {
    out.extend_from_slice(&((HEADER + data.len()) as u64).to_le_bytes());
    out.extend_from_slice(&level.to_le_bytes());
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(data);
    out.resize(align8(out.len()), 0);
}

/// The control messages for a datagram with `info` on a socket wanting
/// `w` (`v6_socket`: an AF_INET6 socket, which may receive IPv4 packets
/// too), in Linux's order, each CMSG_SPACE long. None wanted: empty.
pub fn encode(info: &PacketInfo, w: &Wants, v6_socket: bool) -> Vec<Vec<u8>> {
    let mut msgs = Vec::new();
    let mut one = |level: i32, kind: i32, data: &[u8]| {
        let mut m = Vec::new();
        push(&mut m, level, kind, data);
        msgs.push(m);
    };
    let v4 = || -> [u8; 4] { [info.dst[12], info.dst[13], info.dst[14], info.dst[15]] };
    if v6_socket && w.v6_pktinfo {
        // struct in6_pktinfo: the address, then the interface.
        let mut d = [0u8; 20];
        d[..16].copy_from_slice(&info.dst);
        d[16..].copy_from_slice(&info.ifindex.to_le_bytes());
        one(SOL_IPV6, IPV6_PKTINFO, &d);
    }
    if info.v4 {
        if w.ip_pktinfo {
            // struct in_pktinfo: ifindex, spec_dst (the local address a
            // reply would come from), addr (the header's destination).
            let mut d = [0u8; 12];
            d[..4].copy_from_slice(&info.ifindex.to_le_bytes());
            d[4..8].copy_from_slice(&v4());
            d[8..12].copy_from_slice(&v4());
            one(SOL_IP, IP_PKTINFO, &d);
        }
        if w.ip_ttl {
            one(SOL_IP, IP_TTL, &(info.ttl as i32).to_le_bytes());
        }
        if w.ip_tos {
            one(SOL_IP, IP_TOS, &[info.tos]); // one byte, as Linux sends it
        }
    } else if v6_socket {
        if w.v6_hoplimit {
            one(SOL_IPV6, IPV6_HOPLIMIT, &(info.ttl as i32).to_le_bytes());
        }
        if w.v6_tclass {
            one(SOL_IPV6, IPV6_TCLASS, &(info.tos as i32).to_le_bytes());
        }
    }
    msgs
}

/// The messages that fit in a control buffer of `room` bytes, and whether
/// any was left out (MSG_CTRUNC).
pub fn fit(msgs: Vec<Vec<u8>>, room: usize) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut cut = false;
    for m in msgs {
        if out.len() + m.len() <= room {
            out.extend_from_slice(&m);
        } else {
            cut = true;
        }
    }
    (out, cut)
}

/// A control message a program sent: (level, type, data).
pub type Sent<'a> = (i32, i32, &'a [u8]);

/// The messages in a sendmsg control buffer; None if one is malformed
/// (EINVAL).
pub fn parse(mut b: &[u8]) -> Option<Vec<Sent<'_>>> {
    let mut out = Vec::new();
    while b.len() >= HEADER {
        let len = u64::from_le_bytes(b[..8].try_into().ok()?) as usize;
        if len < HEADER || len > b.len() {
            return None;
        }
        let level = i32::from_le_bytes(b[8..12].try_into().ok()?);
        let kind = i32::from_le_bytes(b[12..16].try_into().ok()?);
        out.push((level, kind, &b[HEADER..len]));
        b = &b[align8(len).min(b.len())..];
    }
    Some(out)
}

/// Whether sendmsg on a UDP socket takes this message: the source
/// address and interface (IP_PKTINFO, IPV6_PKTINFO), TOS or traffic
/// class, TTL or hop limit; and, ignored as Linux ignores them there,
/// SCM_RIGHTS and SCM_CREDENTIALS. Anything else is EINVAL.
pub fn sendable(level: i32, kind: i32) -> bool {
    matches!((level, kind), (SOL_IP, IP_PKTINFO | IP_TOS | IP_TTL) | (SOL_IPV6, IPV6_PKTINFO | IPV6_TCLASS | IPV6_HOPLIMIT) | (1, 1 | 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapped(a: [u8; 4]) -> [u8; 16] {
        let mut d = [0u8; 16];
        d[10] = 0xff;
        d[11] = 0xff;
        d[12..].copy_from_slice(&a);
        d
    }

    #[test]
    fn ipv4_pktinfo_ttl_tos_as_linux() {
        let info = PacketInfo { dst: mapped([127, 0, 0, 1]), v4: true, ifindex: 1, tos: 0xb8, ttl: 64 };
        let w = Wants { ip_pktinfo: true, ip_ttl: true, ip_tos: true, ..Wants::default() };
        let (b, cut) = fit(encode(&info, &w, false), 4096);
        assert!(!cut);
        // CMSG_SPACE(12) + CMSG_SPACE(4) + CMSG_SPACE(1) = 32 + 24 + 24.
        assert_eq!(b.len(), 80);
        assert_eq!(b[..32], [28, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1, 0, 0, 0, 0]);
        assert_eq!(b[32..56], [20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(b[56..73], [17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0xb8]);
    }

    #[test]
    fn ipv6_socket() {
        let mut dst = [0u8; 16];
        dst[15] = 1;
        let info = PacketInfo { dst, v4: false, ifindex: 1, tos: 0, ttl: 64 };
        let w = Wants { v6_pktinfo: true, v6_hoplimit: true, v6_tclass: true, ip_pktinfo: true, ..Wants::default() };
        let msgs = encode(&info, &w, true);
        // IPV6_PKTINFO (CMSG_SPACE(20) = 40), HOPLIMIT, TCLASS; no IPv4 ones.
        assert_eq!(msgs.iter().map(|m| (m.len(), m[12])).collect::<Vec<_>>(), vec![(40, 50), (24, 52), (24, 67)]);
        // An IPv4 packet on a dual-stack socket: the mapped address in
        // IPV6_PKTINFO, then IP_PKTINFO; no hop limit.
        let v4 = PacketInfo { dst: mapped([10, 0, 2, 15]), v4: true, ifindex: 2, tos: 0, ttl: 63 };
        let msgs = encode(&v4, &w, true);
        assert_eq!(msgs.iter().map(|m| (m[8], m[12])).collect::<Vec<_>>(), vec![(41, 50), (0, 8)]);
        assert_eq!(msgs[0][16..32], mapped([10, 0, 2, 15]));
    }

    #[test]
    fn truncation_keeps_whole_messages() {
        let info = PacketInfo { v4: true, ..PacketInfo::default() };
        let w = Wants { ip_pktinfo: true, ip_ttl: true, ..Wants::default() };
        let (b, cut) = fit(encode(&info, &w, false), 40);
        assert_eq!((b.len(), cut), (32, true));
        assert!(encode(&info, &Wants::default(), false).is_empty());
    }

    #[test]
    fn parse_what_programs_send() {
        let info = PacketInfo { v4: true, ..PacketInfo::default() };
        let w = Wants { ip_pktinfo: true, ip_tos: true, ..Wants::default() };
        let (b, _) = fit(encode(&info, &w, false), 4096);
        let sent = parse(&b).unwrap();
        assert_eq!(sent.iter().map(|(l, k, d)| (*l, *k, d.len())).collect::<Vec<_>>(), vec![(0, 8, 12), (0, 1, 1)]);
        assert!(sent.iter().all(|(l, k, _)| sendable(*l, *k)));
        assert!(parse(&[40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).is_none());
        assert!(sendable(1, 1)); // SCM_RIGHTS: ignored on UDP, as Linux does
        assert!(!sendable(0, 99));
    }
}
