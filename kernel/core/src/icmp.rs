//! ICMP echo messages as a ping socket handles them (Linux's net/ipv4/
//! ping.c): what a program may send, the identifier and checksum the
//! kernel writes, and the reply a local destination sends back. A message
//! here starts at the ICMP header (type, code, checksum, identifier,
//! sequence number), 8 bytes, followed by the data.

use crate::errno::{Errno, EINVAL};

pub const ECHO_REPLY: u8 = 0;
pub const DEST_UNREACHABLE: u8 = 3;
pub const ECHO_REQUEST: u8 = 8;
pub const HEADER: usize = 8;

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
pub fn checksum_ok(msg: &[u8]) -> bool {
    checksum(msg) == 0
}

/// Sets the identifier and checksum of an echo request a program sends on
/// a ping socket: EINVAL unless it is an echo request (type 8, code 0)
/// with a whole header, as Linux checks.
pub fn prepare_request(msg: &mut [u8], ident: u16) -> Result<(), Errno> {
    if msg.len() < HEADER || msg[0] != ECHO_REQUEST || msg[1] != 0 {
        return Err(EINVAL);
    }
    msg[4..6].copy_from_slice(&ident.to_be_bytes());
    seal(msg);
    Ok(())
}

/// Turns an echo request into the reply its destination sends.
pub fn into_reply(msg: &mut [u8]) {
    msg[0] = ECHO_REPLY;
    seal(msg);
}

fn seal(msg: &mut [u8]) {
    msg[2..4].copy_from_slice(&[0, 0]);
    let c = checksum(msg);
    msg[2..4].copy_from_slice(&c.to_be_bytes());
}

/// The identifier of an echo reply (None for any other message).
pub fn reply_ident(msg: &[u8]) -> Option<u16> {
    (msg.len() >= HEADER && msg[0] == ECHO_REPLY && msg[1] == 0).then(|| u16::from_be_bytes([msg[4], msg[5]]))
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
        seal(&mut m);
        assert_eq!(u16::from_be_bytes([m[2], m[3]]), !(0x0800u16 + 0x1234 + 0x0001 + 0x6162));
        assert!(checksum_ok(&m));
        m[9] ^= 1;
        assert!(!checksum_ok(&m));
    }

    #[test]
    fn odd_length_and_carry() {
        // 0xffff + 0xffff + 0x0100 = 0x200fe, folded 0x0100, inverted.
        let m = [0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(checksum(&m), 0xfeff);
        assert!(checksum_ok(&[0xff, 0xff]));
    }

    #[test]
    fn requests_and_replies() {
        let mut m = [8, 0, 9, 9, 0, 0, 0, 7, 1, 2, 3];
        prepare_request(&mut m, 0xbeef).unwrap();
        assert_eq!(&m[4..6], &[0xbe, 0xef]);
        assert!(checksum_ok(&m));
        assert_eq!(reply_ident(&m), None);
        into_reply(&mut m);
        assert!(checksum_ok(&m));
        assert_eq!(reply_ident(&m), Some(0xbeef));
        assert_eq!(prepare_request(&mut [0u8; 8], 1), Err(EINVAL));
        assert_eq!(prepare_request(&mut [8u8, 0, 0, 0], 1), Err(EINVAL));
        assert_eq!(prepare_request(&mut [8u8, 1, 0, 0, 0, 0, 0, 0], 1), Err(EINVAL));
    }

    #[test]
    fn ipv4_headers() {
        let h = ipv4_header([127, 0, 0, 1], [127, 0, 0, 1], 1, 16);
        assert_eq!(h[0], 0x45);
        assert_eq!(u16::from_be_bytes([h[2], h[3]]), 36);
        assert!(checksum_ok(&h));
    }
}
