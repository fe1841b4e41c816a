//! Host tests for virtionet.rs: feature choice, header layout, and the
//! checksum/segmentation offload decisions on hand-made frames.

use super::*;

/// An Ethernet frame with an IPv4 (or IPv6) TCP segment carrying `payload`,
/// checksums as the stack leaves them with TCP checksum offload on (0).
fn tcp_frame(v6: bool, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8; 12];
    let tcp_len = 20 + payload.len();
    if v6 {
        f.extend_from_slice(&0x86ddu16.to_be_bytes());
        let mut ip = vec![0u8; 40];
        ip[0] = 0x60;
        ip[4..6].copy_from_slice(&(tcp_len as u16).to_be_bytes());
        ip[6] = 6;
        ip[7] = 64;
        ip[8..24].copy_from_slice(&[0xfe, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x15]);
        ip[24..40].copy_from_slice(&[0xfe, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02]);
        f.extend_from_slice(&ip);
    } else {
        f.extend_from_slice(&0x0800u16.to_be_bytes());
        let mut ip = vec![0u8; 20];
        ip[0] = 0x45;
        ip[2..4].copy_from_slice(&((20 + tcp_len) as u16).to_be_bytes());
        ip[6] = 0x40; // DF
        ip[8] = 64;
        ip[9] = 6;
        ip[12..16].copy_from_slice(&[10, 0, 2, 15]);
        ip[16..20].copy_from_slice(&[10, 0, 2, 2]);
        f.extend_from_slice(&ip);
    }
    let mut tcp = vec![0u8; 20];
    tcp[0..2].copy_from_slice(&80u16.to_be_bytes());
    tcp[2..4].copy_from_slice(&40000u16.to_be_bytes());
    tcp[12] = 5 << 4;
    tcp[13] = 0x18;
    f.extend_from_slice(&tcp);
    f.extend_from_slice(payload);
    f
}

/// What the device does with a NEEDS_CSUM frame.
fn device_checksums(f: &mut [u8], h: &NetHdr) {
    assert!(complete_checksum(f, h.csum_start as usize, h.csum_offset as usize));
}

#[test]
fn choose_keeps_dependencies() {
    assert_eq!(choose(F_HOST_TSO4 | F_GUEST_TSO4 | F_MAC), F_MAC);
    let all = choose(u64::MAX);
    assert_eq!(all, WANTED);
    assert_eq!(choose(F_CSUM | F_HOST_TSO6 | (1 << 22)), F_CSUM | F_HOST_TSO6);
    assert_eq!(choose(F_GUEST_CSUM | F_GUEST_TSO4), F_GUEST_CSUM, "no 64 KiB packets without mergeable buffers");
}

#[test]
fn header_round_trip_and_length() {
    assert_eq!(header_len(0), 10);
    assert_eq!(header_len(F_MRG_RXBUF), 12);
    assert_eq!(header_len(F_VERSION_1), 12);
    let h = NetHdr { flags: NEEDS_CSUM, gso_type: GSO_TCPV4, hdr_len: 54, gso_size: 1460, csum_start: 34, csum_offset: 16, num_buffers: 3 };
    let mut b = [0u8; 12];
    h.encode(&mut b);
    assert_eq!(b, [1, 1, 54, 0, 0xb4, 0x05, 34, 0, 16, 0, 3, 0]);
    assert_eq!(NetHdr::decode(&b, 12), Some(h));
    assert_eq!(NetHdr::decode(&b, 10).map(|d| d.num_buffers), Some(1));
    assert_eq!(NetHdr::decode(&b[..9], 10), None);
}

#[test]
fn tx_checksum_offload_gives_a_valid_checksum() {
    for v6 in [false, true] {
        for len in [0usize, 1, 7, 100, 1460] {
            let payload: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let mut f = tcp_frame(v6, &payload);
            let h = tx_offload(&mut f, None).expect("a TCP frame");
            assert_eq!(h.flags, NEEDS_CSUM);
            assert_eq!(h.gso_type, GSO_NONE);
            assert_eq!(h.csum_start as usize, if v6 { 54 } else { 34 });
            assert_eq!(h.csum_offset, 16);
            device_checksums(&mut f, &h);
            assert!(tcp_checksum_ok(&f), "v6={v6} len={len}");
            if len > 0 {
                let last = f.len() - 1;
                f[last] ^= 0x40;
                assert!(!tcp_checksum_ok(&f), "a flipped bit is caught");
            }
        }
    }
}

#[test]
fn tso_only_for_segments_past_the_mss() {
    let mut small = tcp_frame(false, &[1; 1000]);
    assert_eq!(tx_offload(&mut small, Some(1460)).map(|h| h.gso_type), Some(GSO_NONE));
    let mut big = tcp_frame(false, &[1; 30000]);
    let h = tx_offload(&mut big, Some(1460)).unwrap();
    assert_eq!((h.gso_type, h.gso_size, h.hdr_len), (GSO_TCPV4, 1460, 54));
    let mut big6 = tcp_frame(true, &[1; 3000]);
    let h = tx_offload(&mut big6, Some(1440)).unwrap();
    assert_eq!((h.gso_type, h.gso_size, h.hdr_len), (GSO_TCPV6, 1440, 74));
}

#[test]
fn not_tcp_is_left_alone() {
    let mut f = tcp_frame(false, &[1, 2, 3]);
    f[23] = 17; // UDP
    assert_eq!(tx_offload(&mut f, None), None);
    assert!(tcp_checksum_ok(&f));
    assert!(!is_tcp(&f));
    let mut arp = vec![0u8; 42];
    arp[12] = 0x08;
    arp[13] = 0x06;
    assert_eq!(tx_offload(&mut arp, None), None);
    // A truncated IPv4 header or a length past the frame: not parsed.
    let mut short = tcp_frame(false, &[1; 10]);
    short.truncate(40);
    assert_eq!(tx_offload(&mut short, None), None);
    let mut frag = tcp_frame(false, &[1; 10]);
    frag[20] = 0x20; // more fragments
    assert_eq!(tx_offload(&mut frag, None), None);
}

#[test]
fn sum_matches_the_plain_definition() {
    let data: Vec<u8> = (0..1001u32).map(|i| (i * 31 + 5) as u8).collect();
    for n in [0, 1, 2, 7, 8, 9, 64, 1001] {
        let mut plain: u32 = 0;
        for p in data[..n].chunks(2) {
            plain += u16::from_be_bytes([p[0], *p.get(1).unwrap_or(&0)]) as u32;
        }
        assert_eq!(fold(sum(&data[..n], 0)), fold(plain), "n={n}");
    }
    assert!(!complete_checksum(&mut [0u8; 10], 8, 2));
}
