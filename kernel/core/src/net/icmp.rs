//! ICMP echo messages as a ping socket handles them (Linux's net/ipv4/
//! ping.c): what a program may send, the identifier and checksum the
//! kernel writes, and the reply a local destination sends back. A message
//! here starts at the ICMP header (type, code, checksum, identifier,
//! sequence number), 8 bytes, followed by the data.

use crate::linux::errno::{Errno, EINVAL};

pub const ECHO_REPLY: u8 = 0;
pub const DEST_UNREACHABLE: u8 = 3;
pub const ECHO_REQUEST: u8 = 8;
/// ICMPv6's echo types (RFC 4443).
pub const ECHO_REQUEST_V6: u8 = 128;
pub const ECHO_REPLY_V6: u8 = 129;
pub const HEADER: usize = 8;

/// The addresses an ICMPv6 checksum covers (its pseudo-header, RFC 8200
/// 8.1), source then destination; None for ICMP over IPv4.
pub type V6Pair = Option<([u8; 16], [u8; 16])>;

fn types(v6: V6Pair) -> (u8, u8) {
    if v6.is_some() {
        (ECHO_REQUEST_V6, ECHO_REPLY_V6)
    } else {
        (ECHO_REQUEST, ECHO_REPLY)
    }
}

/// The checksum of `msg`, with the IPv6 pseudo-header when `v6` names one.
pub fn checksum_for(msg: &[u8], v6: V6Pair) -> u16 {
    let Some((src, dst)) = v6 else { return checksum(msg) };
    let mut all = [0u8; 40];
    all[..16].copy_from_slice(&src);
    all[16..32].copy_from_slice(&dst);
    all[32..36].copy_from_slice(&(msg.len() as u32).to_be_bytes());
    all[39] = 58; // next header: ICMPv6
    // Both parts have even length, so their one's-complement sums add.
    let a = !checksum(&all) as u32;
    let b = !checksum(msg) as u32;
    let mut sum = a + b;
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The Internet checksum (RFC 1071) of `data`.
pub fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut words = data.chunks_exact(2);
    for w in &mut words {
        sum += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    if let [last] = words.remainder() {
        sum += (*last as u32) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Does `msg` carry a correct checksum?
pub fn checksum_ok(msg: &[u8], v6: V6Pair) -> bool {
    checksum_for(msg, v6) == 0
}

/// Sets the identifier and checksum of an echo request a program sends on
/// a ping socket: EINVAL unless it is an echo request (type 8, or 128 for
/// ICMPv6, code 0) with a whole header, as Linux checks.
pub fn prepare_request(msg: &mut [u8], ident: u16, v6: V6Pair) -> Result<(), Errno> {
    if msg.len() < HEADER || msg[0] != types(v6).0 || msg[1] != 0 {
        return Err(EINVAL);
    }
    msg[4..6].copy_from_slice(&ident.to_be_bytes());
    seal(msg, v6);
    Ok(())
}

/// Is `msg` an echo request (of ICMPv6 when `v6`) with a correct checksum?
pub fn is_request(msg: &[u8], v6: V6Pair) -> bool {
    msg.len() >= HEADER && msg[0] == types(v6).0 && msg[1] == 0 && checksum_ok(msg, v6)
}

/// Turns an echo request into the reply its destination sends (`v6`: the
/// reply's source and destination).
pub fn into_reply(msg: &mut [u8], v6: V6Pair) {
    msg[0] = types(v6).1;
    seal(msg, v6);
}

/// Writes the checksum (the kernel does for ping sockets and for raw
/// ICMPv6 sockets, as Linux does).
pub fn seal(msg: &mut [u8], v6: V6Pair) {
    if msg.len() < 4 {
        return;
    }
    msg[2..4].copy_from_slice(&[0, 0]);
    let c = checksum_for(msg, v6);
    msg[2..4].copy_from_slice(&c.to_be_bytes());
}

/// The identifier of an echo reply (of ICMPv6 when `v6`); None for any
/// other message.
pub fn reply_ident(msg: &[u8], v6: bool) -> Option<u16> {
    let reply = if v6 { ECHO_REPLY_V6 } else { ECHO_REPLY };
    (msg.len() >= HEADER && msg[0] == reply && msg[1] == 0).then(|| u16::from_be_bytes([msg[4], msg[5]]))
}

/// An IPv4 header (no options) for a packet from `src` to `dst` carrying
/// `payload_len` bytes of protocol `proto`: what a raw socket's reader
/// sees before an ICMP message that never crossed a wire (loopback).
pub fn ipv4_header(src: [u8; 4], dst: [u8; 4], proto: u8, payload_len: usize) -> [u8; 20] {
    let total = (20 + payload_len).min(0xffff) as u16;
    let mut h = [0u8; 20];
    h[0] = 0x45; // version 4, 5 words
    h[2..4].copy_from_slice(&total.to_be_bytes());
    h[6] = 0x40; // don't fragment
    h[8] = 64; // TTL
    h[9] = proto;
    h[12..16].copy_from_slice(&src);
    h[16..20].copy_from_slice(&dst);
    let c = checksum(&h);
    h[10..12].copy_from_slice(&c.to_be_bytes());
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_of_known_message() {
        // An echo request, id 0x1234, seq 1, data "ab": checked by hand.
        let mut m = [8, 0, 0, 0, 0x12, 0x34, 0, 1, b'a', b'b'];
        seal(&mut m, None);
        assert_eq!(u16::from_be_bytes([m[2], m[3]]), !(0x0800u16 + 0x1234 + 0x0001 + 0x6162));
        assert!(checksum_ok(&m, None));
        m[9] ^= 1;
        assert!(!checksum_ok(&m, None));
    }

    #[test]
    fn odd_length_and_carry() {
        // 0xffff + 0xffff + 0x0100 = 0x200fe, folded 0x0100, inverted.
        let m = [0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(checksum(&m), 0xfeff);
        assert!(checksum_ok(&[0xff, 0xff], None));
    }

    #[test]
    fn requests_and_replies() {
        let mut m = [8, 0, 9, 9, 0, 0, 0, 7, 1, 2, 3];
        prepare_request(&mut m, 0xbeef, None).unwrap();
        assert_eq!(&m[4..6], &[0xbe, 0xef]);
        assert!(is_request(&m, None));
        assert_eq!(reply_ident(&m, false), None);
        into_reply(&mut m, None);
        assert!(checksum_ok(&m, None));
        assert_eq!(reply_ident(&m, false), Some(0xbeef));
        assert_eq!(prepare_request(&mut [0u8; 8], 1, None), Err(EINVAL));
        assert_eq!(prepare_request(&mut [8u8, 0, 0, 0], 1, None), Err(EINVAL));
        assert_eq!(prepare_request(&mut [8u8, 1, 0, 0, 0, 0, 0, 0], 1, None), Err(EINVAL));
        assert_eq!(prepare_request(&mut [8u8, 0, 0, 0, 0, 0, 0, 0], 1, Some(([0; 16], [0; 16]))), Err(EINVAL));
    }

    #[test]
    fn ipv4_headers() {
        let h = ipv4_header([127, 0, 0, 1], [127, 0, 0, 1], 1, 16);
        assert_eq!(h[0], 0x45);
        assert_eq!(u16::from_be_bytes([h[2], h[3]]), 36);
        assert!(checksum_ok(&h, None));
    }

    #[test]
    fn icmpv6_echo() {
        // An echo request ::1 -> ::1, id 1, seq 1, no data: the pseudo-
        // header adds 1 + 1 (the addresses), 8 (length) and 58 (ICMPv6).
        let lo = {
            let mut a = [0u8; 16];
            a[15] = 1;
            a
        };
        let mut m = [128, 0, 0, 0, 0, 0, 0, 1];
        prepare_request(&mut m, 1, Some((lo, lo))).unwrap();
        let want = !(0x8000u16 + 1 + 1 + 1 + 1 + 8 + 58);
        assert_eq!(u16::from_be_bytes([m[2], m[3]]), want);
        assert!(is_request(&m, Some((lo, lo))));
        assert!(!is_request(&m, None));
        into_reply(&mut m, Some((lo, lo)));
        assert_eq!(reply_ident(&m, true), Some(1));
        assert!(checksum_ok(&m, Some((lo, lo))));
    }
}
