//! The pure half of the virtio-net driver (kernel/src/drivers/virtio/net.rs):
//! which features to accept, the `virtio_net_hdr` that precedes every frame
//! on the queues, and the checksum-offload and segmentation-offload (TSO)
//! decisions for a frame, read from its own headers.
//!
//! Transmit: the stack leaves a TCP segment's checksum field 0 (its
//! checksum capability for TCP is off when the device offers
//! VIRTIO_NET_F_CSUM); `tx_offload` puts the pseudo-header sum there and
//! returns a header with NEEDS_CSUM (csum_start at the TCP header, offset
//! 16), and for a segment larger than the MSS the GSO type and size, so the
//! device (the host's tap, in the end) cuts it into MSS-sized segments and
//! checksums each. Receive: with VIRTIO_NET_F_GUEST_CSUM a packet that comes
//! with DATA_VALID (checked by the host) or NEEDS_CSUM (made on this very
//! host, never on a wire) is taken as is; any other TCP segment is checked
//! here in software (`tcp_checksum_ok`), since the stack no longer checks.

/// Feature bits (virtio 1.2, 5.1.3).
pub const F_CSUM: u64 = 1 << 0;
pub const F_GUEST_CSUM: u64 = 1 << 1;
pub const F_MAC: u64 = 1 << 5;
pub const F_GUEST_TSO4: u64 = 1 << 7;
pub const F_GUEST_TSO6: u64 = 1 << 8;
pub const F_HOST_TSO4: u64 = 1 << 11;
pub const F_HOST_TSO6: u64 = 1 << 12;
pub const F_MRG_RXBUF: u64 = 1 << 15;
pub const F_STATUS: u64 = 1 << 16;
pub const F_INDIRECT_DESC: u64 = 1 << 28;
pub const F_EVENT_IDX: u64 = 1 << 29;
pub const F_VERSION_1: u64 = 1 << 32;

/// What the driver can use.
pub const WANTED: u64 = F_CSUM
    | F_GUEST_CSUM
    | F_MAC
    | F_GUEST_TSO4
    | F_GUEST_TSO6
    | F_HOST_TSO4
    | F_HOST_TSO6
    | F_MRG_RXBUF
    | F_STATUS
    | F_VERSION_1
    | crate::drivers::virtionetmq::F_CTRL_VQ
    | crate::drivers::virtionetmq::F_MQ;

/// The features to accept of those `offered`, with the spec's dependencies
/// kept (TSO needs the matching checksum offload: a device may refuse
/// FEATURES_OK otherwise).
pub fn choose(offered: u64) -> u64 {
    let mut f = offered & WANTED;
    if f & F_CSUM == 0 {
        f &= !(F_HOST_TSO4 | F_HOST_TSO6);
    }
    // Large received packets need mergeable buffers (else every receive
    // buffer would have to hold 64 KiB).
    if f & F_GUEST_CSUM == 0 || f & F_MRG_RXBUF == 0 {
        f &= !(F_GUEST_TSO4 | F_GUEST_TSO6);
    }
    crate::drivers::virtionetmq::choose(f)
}

/// Whether a frame holds a TCP segment this file can offload or check.
pub fn is_tcp(frame: &[u8]) -> bool {
    tcp_of(frame).is_some()
}

/// `virtio_net_hdr.flags`.
pub const NEEDS_CSUM: u8 = 1;
pub const DATA_VALID: u8 = 2;
/// `virtio_net_hdr.gso_type`.
pub const GSO_NONE: u8 = 0;
pub const GSO_TCPV4: u8 = 1;
pub const GSO_TCPV6: u8 = 4;

/// The header's length: 12 bytes with `num_buffers` (MRG_RXBUF or a
/// VERSION_1 device), else 10 (a legacy device, as QEMU's virtio-mmio is
/// unless told otherwise).
pub fn header_len(features: u64) -> usize {
    if features & (F_MRG_RXBUF | F_VERSION_1) != 0 {
        12
    } else {
        10
    }
}

/// `struct virtio_net_hdr` (little-endian: VERSION_1, or a legacy device on
/// a little-endian machine).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetHdr {
    pub flags: u8,
    pub gso_type: u8,
    pub hdr_len: u16,
    pub gso_size: u16,
    pub csum_start: u16,
    pub csum_offset: u16,
    pub num_buffers: u16,
}

impl NetHdr {
    /// Writes the header into `out` (10 or 12 bytes long).
    pub fn encode(&self, out: &mut [u8]) {
        let mut b = [0u8; 12];
        b[0] = self.flags;
        b[1] = self.gso_type;
        b[2..4].copy_from_slice(&self.hdr_len.to_le_bytes());
        b[4..6].copy_from_slice(&self.gso_size.to_le_bytes());
        b[6..8].copy_from_slice(&self.csum_start.to_le_bytes());
        b[8..10].copy_from_slice(&self.csum_offset.to_le_bytes());
        b[10..12].copy_from_slice(&self.num_buffers.to_le_bytes());
        let n = out.len().min(12);
        out[..n].copy_from_slice(&b[..n]);
    }

    /// Reads a header of `len` (10 or 12) bytes; a 10-byte one has one buffer.
    pub fn decode(b: &[u8], len: usize) -> Option<NetHdr> {
        if b.len() < len || len < 10 {
            return None;
        }
        let u16at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        Some(NetHdr {
            flags: b[0],
            gso_type: b[1],
            hdr_len: u16at(2),
            gso_size: u16at(4),
            csum_start: u16at(6),
            csum_offset: u16at(8),
            num_buffers: if len >= 12 { u16at(10) } else { 1 },
        })
    }
}

const ETH: usize = 14;
const PROTO_TCP: u8 = 6;

/// Where a frame's TCP segment is: (IP header offset, TCP header offset,
/// TCP length, pseudo-header sum without the length, IPv6?). None for
/// anything but TCP over IPv4 (no fragment) or IPv6 (no extension header).
fn tcp_of(frame: &[u8]) -> Option<(usize, usize, usize, u32, bool)> {
    let ethertype = u16::from_be_bytes([*frame.get(12)?, *frame.get(13)?]);
    match ethertype {
        0x0800 => {
            let ip = frame.get(ETH..ETH + 20)?;
            let ihl = ((ip[0] & 0x0f) as usize) * 4;
            let total = u16::from_be_bytes([ip[2], ip[3]]) as usize;
            let frag = u16::from_be_bytes([ip[6], ip[7]]) & 0x3fff;
            if ip[0] >> 4 != 4 || ip[9] != PROTO_TCP || ihl < 20 || frag != 0 || total < ihl || ETH + total > frame.len() {
                return None;
            }
            let pseudo = sum(&ip[12..20], PROTO_TCP as u32);
            Some((ETH, ETH + ihl, total - ihl, pseudo, false))
        }
        0x86dd => {
            let ip = frame.get(ETH..ETH + 40)?;
            let payload = u16::from_be_bytes([ip[4], ip[5]]) as usize;
            if ip[0] >> 4 != 6 || ip[6] != PROTO_TCP || ETH + 40 + payload > frame.len() {
                return None;
            }
            let pseudo = sum(&ip[8..40], PROTO_TCP as u32);
            Some((ETH, ETH + 40, payload, pseudo, true))
        }
        _ => None,
    }
}

/// Adds `data` as big-endian 16-bit words to `acc` (ones' complement sum,
/// not yet folded; an odd last byte is padded with zero).
pub fn sum(data: &[u8], mut acc: u32) -> u32 {
    let mut wide: u64 = acc as u64;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        wide += (w >> 32) + (w & 0xffff_ffff);
    }
    let rest = chunks.remainder();
    let mut pairs = rest.chunks_exact(2);
    for p in &mut pairs {
        wide += u16::from_be_bytes([p[0], p[1]]) as u64;
    }
    if let [last] = pairs.remainder() {
        wide += (*last as u64) << 8;
    }
    while wide >> 32 != 0 {
        wide = (wide & 0xffff_ffff) + (wide >> 32);
    }
    acc = wide as u32;
    acc
}

/// Folds a sum to 16 bits (not inverted).
pub fn fold(mut s: u32) -> u16 {
    while s >> 16 != 0 {
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

/// Prepares an outgoing frame for the device's checksum (and, with
/// `mss`, segmentation) offload: when it holds a TCP segment, writes the
/// pseudo-header sum into its checksum field and returns the header
/// asking for the rest. `mss` is the stack's segment size for a segment
/// longer than that (smoltcp's `segmentation_offload_size`); `tso4`/`tso6`
/// say whether the device takes such segments. None: send the frame as it
/// is (not TCP, or a frame this does not parse, whose checksum the stack
/// wrote itself).
pub fn tx_offload(frame: &mut [u8], mss: Option<u16>) -> Option<NetHdr> {
    let (_, tcp, tcp_len, pseudo, v6) = tcp_of(frame)?;
    let data_off = ((*frame.get(tcp + 12)? >> 4) as usize) * 4;
    if data_off < 20 || data_off > tcp_len {
        return None;
    }
    let partial = fold(pseudo + tcp_len as u32);
    frame.get_mut(tcp + 16..tcp + 18)?.copy_from_slice(&partial.to_be_bytes());
    let mut h = NetHdr { flags: NEEDS_CSUM, csum_start: tcp as u16, csum_offset: 16, ..NetHdr::default() };
    if let Some(mss) = mss.filter(|&m| m > 0 && tcp_len - data_off > m as usize) {
        h.gso_type = if v6 { GSO_TCPV6 } else { GSO_TCPV4 };
        h.gso_size = mss;
        h.hdr_len = (tcp + data_off) as u16;
    }
    Some(h)
}

/// Whether a received frame's TCP checksum is right (true for what is not
/// TCP: the stack or the kernel's UDP and ICMP code check those).
pub fn tcp_checksum_ok(frame: &[u8]) -> bool {
    let Some((_, tcp, tcp_len, pseudo, _)) = tcp_of(frame) else { return true };
    let Some(seg) = frame.get(tcp..tcp + tcp_len) else { return false };
    fold(sum(seg, pseudo + tcp_len as u32)) == 0xffff
}

/// Completes a received frame's checksum that the sender left partial
/// (NEEDS_CSUM: the sum from `start` to the end, stored at start + offset);
/// false when those offsets are outside the frame.
pub fn complete_checksum(frame: &mut [u8], start: usize, offset: usize) -> bool {
    if start + offset + 2 > frame.len() {
        return false;
    }
    let c = !fold(sum(&frame[start..], 0));
    frame[start + offset..start + offset + 2].copy_from_slice(&c.to_be_bytes());
    true
}

#[cfg(test)]
#[path = "virtionet_tests.rs"]
mod tests;
