//! Which of the NIC's socket sets a received frame is for. smoltcp looks
//! for a frame's socket by walking every socket of the set it is given,
//! per frame, and walks the whole set again for every poll's egress and
//! deadline: with 10,000 connections in one set a server through the
//! device served 1% of Linux's requests. The kernel (net/nic/shard.rs)
//! therefore keeps SHARDS sets under one interface, puts each connection
//! in the set its addresses hash to, and hands smoltcp only that set for
//! the connection's frames; this file reads a frame's headers far enough
//! to say which set that is. No crate does this (smoltcp's own parsers
//! want the frame checked whole; this needs only the 4-tuple, on every
//! frame, before smoltcp sees it).

/// How many socket sets there are: 10,000 connections make about 40 per
/// set, which smoltcp walks per frame of theirs.
pub const SHARDS: usize = 256;
/// Words of a `DirtySet`.
pub const WORDS: usize = SHARDS / 64;

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_ARP: u16 = 0x0806;
const ETHERTYPE_IPV6: u16 = 0x86dd;
const ETH_HEADER: usize = 14;
const IPV6_HEADER: usize = 40;
const PROTO_TCP: u8 = 6;
const PROTO_ICMPV6: u8 = 58;
const TCP_SYN: u8 = 0x02;
const TCP_ACK: u8 = 0x10;

/// Where a frame goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// A TCP segment: the shard of its connection, and when it opens one
    /// (SYN without ACK) its addresses, so that the shard can be given a
    /// listening socket for that port first.
    Tcp { shard: usize, syn: Option<Syn> },
    /// Address resolution (ARP, ICMPv6 with its neighbour discovery): a
    /// socket of any shard may be waiting for the answer.
    Neighbor,
    /// Anything else (UDP, ICMP, fragments, what does not parse): shard 0,
    /// which holds the raw sockets, and where smoltcp drops what is bad.
    Other,
}

/// A connection request's addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Syn {
    /// The sender's address; IPv4 as ::ffff:a.b.c.d.
    pub from: [u8; 16],
    pub from_port: u16,
    pub to_port: u16,
}

/// The shard of a TCP connection with `remote` (4 or 16 address bytes)
/// from `remote_port` to our `local_port`: FNV-1a over the three.
pub fn shard_of(remote: &[u8], remote_port: u16, local_port: u16) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    let ports = [remote_port.to_be_bytes(), local_port.to_be_bytes()];
    for &b in remote.iter().chain(ports.iter().flatten()) {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    (h ^ (h >> 16)) as usize % SHARDS
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// Routes an Ethernet frame by its headers (nothing is checksummed here).
pub fn route(frame: &[u8]) -> Route {
    match be16(frame, 12) {
        Some(ETHERTYPE_ARP) => Route::Neighbor,
        Some(ETHERTYPE_IPV4) => route_ipv4(&frame[ETH_HEADER..]).unwrap_or(Route::Other),
        Some(ETHERTYPE_IPV6) => route_ipv6(&frame[ETH_HEADER..]).unwrap_or(Route::Other),
        _ => Route::Other,
    }
}

fn route_ipv4(ip: &[u8]) -> Option<Route> {
    let ihl = (*ip.first()? & 0x0f) as usize * 4;
    let fragment = be16(ip, 6)? & 0x3fff; // more-fragments flag and offset
    if ihl < 20 || *ip.get(9)? != PROTO_TCP || fragment != 0 {
        return None;
    }
    tcp(ip.get(12..16)?, ip.get(ihl..)?)
}

fn route_ipv6(ip: &[u8]) -> Option<Route> {
    match *ip.get(6)? {
        PROTO_TCP => tcp(ip.get(8..24)?, ip.get(IPV6_HEADER..)?),
        PROTO_ICMPV6 => Some(Route::Neighbor),
        _ => None, // extension headers included: smoltcp's shard 0 sorts them
    }
}

fn tcp(src: &[u8], seg: &[u8]) -> Option<Route> {
    let (from_port, to_port, flags) = (be16(seg, 0)?, be16(seg, 2)?, *seg.get(13)?);
    let syn = (flags & (TCP_SYN | TCP_ACK) == TCP_SYN).then(|| {
        let mut from = [0u8; 16];
        if src.len() == 4 {
            from[10..12].copy_from_slice(&[0xff, 0xff]);
        }
        from[16 - src.len()..].copy_from_slice(src);
        Syn { from, from_port, to_port }
    });
    Some(Route::Tcp { shard: shard_of(src, from_port, to_port), syn })
}

/// A set of shards with work waiting (one bit each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirtySet(pub [u64; WORDS]);

impl DirtySet {
    pub const ALL: DirtySet = DirtySet([u64::MAX; WORDS]);

    pub fn with(mut self, shard: usize) -> DirtySet {
        let s = shard % SHARDS;
        self.0[s / 64] |= 1 << (s % 64);
        self
    }

    pub fn has(&self, shard: usize) -> bool {
        let s = shard % SHARDS;
        self.0[s / 64] & 1 << (s % 64) != 0
    }

    pub fn union(mut self, other: DirtySet) -> DirtySet {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a |= b;
        }
        self
    }

    pub fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The shards in the set, lowest first.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..WORDS).flat_map(move |w| {
            let mut word = self.0[w];
            core::iter::from_fn(move || {
                if word == 0 {
                    return None;
                }
                let bit = word.trailing_zeros() as usize;
                word &= word - 1;
                Some(w * 64 + bit)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eth(ethertype: u16, payload: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&ethertype.to_be_bytes());
        f.extend_from_slice(payload);
        f
    }

    fn tcp_seg(from: u16, to: u16, flags: u8) -> Vec<u8> {
        let mut s = vec![0u8; 20];
        s[0..2].copy_from_slice(&from.to_be_bytes());
        s[2..4].copy_from_slice(&to.to_be_bytes());
        s[13] = flags;
        s
    }

    fn ipv4(proto: u8, src: [u8; 4], frag: u16, payload: &[u8]) -> Vec<u8> {
        let mut ip = vec![0u8; 20];
        ip[0] = 0x45;
        ip[6..8].copy_from_slice(&frag.to_be_bytes());
        ip[9] = proto;
        ip[12..16].copy_from_slice(&src);
        ip.extend_from_slice(payload);
        ip
    }

    fn ipv6(next: u8, src: [u8; 16], payload: &[u8]) -> Vec<u8> {
        let mut ip = vec![0u8; 40];
        ip[0] = 0x60;
        ip[6] = next;
        ip[8..24].copy_from_slice(&src);
        ip.extend_from_slice(payload);
        ip
    }

    #[test]
    fn tcp_over_ipv4_goes_to_its_connections_shard() {
        let gw = [10, 0, 2, 2];
        let f = eth(ETHERTYPE_IPV4, &ipv4(PROTO_TCP, gw, 0x4000, &tcp_seg(40000, 80, TCP_ACK)));
        assert_eq!(route(&f), Route::Tcp { shard: shard_of(&gw, 40000, 80), syn: None });
        let syn = eth(ETHERTYPE_IPV4, &ipv4(PROTO_TCP, gw, 0, &tcp_seg(40000, 80, TCP_SYN)));
        let mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 2, 2];
        let want = Syn { from: mapped, from_port: 40000, to_port: 80 };
        assert_eq!(route(&syn), Route::Tcp { shard: shard_of(&gw, 40000, 80), syn: Some(want) });
        let syn_ack = eth(ETHERTYPE_IPV4, &ipv4(PROTO_TCP, gw, 0, &tcp_seg(80, 40000, TCP_SYN | TCP_ACK)));
        assert_eq!(route(&syn_ack), Route::Tcp { shard: shard_of(&gw, 80, 40000), syn: None });
    }

    #[test]
    fn ipv4_options_move_the_tcp_header() {
        let mut ip = ipv4(PROTO_TCP, [1, 2, 3, 4], 0, &[0; 4]);
        ip[0] = 0x46; // 24-byte header: the 4 zero bytes are an option
        ip.extend_from_slice(&tcp_seg(5, 6, TCP_SYN));
        let to = match route(&eth(ETHERTYPE_IPV4, &ip)) {
            Route::Tcp { shard, syn: Some(syn) } if shard == shard_of(&[1, 2, 3, 4], 5, 6) => (syn.from_port, syn.to_port),
            r => panic!("{r:?}"),
        };
        assert_eq!(to, (5, 6));
    }

    #[test]
    fn tcp_over_ipv6() {
        let src = [0xfe, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
        let f = eth(ETHERTYPE_IPV6, &ipv6(PROTO_TCP, src, &tcp_seg(1234, 8080, TCP_SYN)));
        let want = Syn { from: src, from_port: 1234, to_port: 8080 };
        assert_eq!(route(&f), Route::Tcp { shard: shard_of(&src, 1234, 8080), syn: Some(want) });
    }

    #[test]
    fn address_resolution_reaches_every_shard() {
        assert_eq!(route(&eth(ETHERTYPE_ARP, &[0; 28])), Route::Neighbor);
        assert_eq!(route(&eth(ETHERTYPE_IPV6, &ipv6(PROTO_ICMPV6, [0; 16], &[135, 0, 0, 0]))), Route::Neighbor);
    }

    #[test]
    fn the_rest_goes_to_shard_zero() {
        let udp = eth(ETHERTYPE_IPV4, &ipv4(17, [1, 1, 1, 1], 0, &[0; 8]));
        let fragment = eth(ETHERTYPE_IPV4, &ipv4(PROTO_TCP, [1, 1, 1, 1], 0x2000, &tcp_seg(1, 2, TCP_SYN)));
        let later_fragment = eth(ETHERTYPE_IPV4, &ipv4(PROTO_TCP, [1, 1, 1, 1], 0x0010, &[0; 20]));
        for f in [udp, fragment, later_fragment, eth(0x88cc, &[0; 40]), vec![0; 5]] {
            assert_eq!(route(&f), Route::Other, "{f:?}");
        }
    }

    #[test]
    fn truncated_headers_never_panic() {
        let full = eth(ETHERTYPE_IPV4, &ipv4(PROTO_TCP, [9, 9, 9, 9], 0, &tcp_seg(1, 2, TCP_SYN)));
        let flags_end = ETH_HEADER + 20 + 14; // the TCP flags are all it reads
        for n in 0..full.len() {
            let r = route(&full[..n]);
            assert_eq!(matches!(r, Route::Other), n < flags_end, "{n} bytes: {r:?}");
        }
        let mut bad_ihl = full.clone();
        bad_ihl[14] = 0x4f; // 60-byte header, longer than the frame
        assert_eq!(route(&bad_ihl), Route::Other);
        bad_ihl[14] = 0x41; // 4 bytes: below the minimum
        assert_eq!(route(&bad_ihl), Route::Other);
    }

    #[test]
    fn connections_spread_over_the_shards() {
        let mut count = [0usize; SHARDS];
        for port in 30000..40000u16 {
            count[shard_of(&[10, 0, 2, 2], port, 80)] += 1;
        }
        let (lo, hi) = (count.iter().min().unwrap(), count.iter().max().unwrap());
        assert!(*lo > 15 && *hi < 70, "10,000 connections spread {lo}..{hi} per shard");
    }

    #[test]
    fn dirty_sets() {
        let d = DirtySet::default().with(3).with(63).with(3).with(64).with(SHARDS - 1);
        assert_eq!(d.iter().collect::<Vec<_>>(), vec![3, 63, 64, SHARDS - 1]);
        assert!(d.has(64) && !d.has(65));
        assert_eq!(d.count(), 4);
        assert_eq!(DirtySet::ALL.iter().count(), SHARDS);
        assert_eq!(DirtySet::default().with(7).union(DirtySet::default().with(200)).iter().collect::<Vec<_>>(), vec![7, 200]);
    }
}
