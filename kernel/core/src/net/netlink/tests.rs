//! The messages against what Linux 6.x sent for the same interfaces
//! (captured with syscall.NetlinkRIB), and read back the way Go's
//! syscall.ParseNetlinkMessage and ParseNetlinkRouteAttr read them.

use super::*;

/// (type, flags, seq, pid, fixed part + attributes) of each message, as Go
/// splits a datagram.
fn split(mut b: &[u8]) -> Vec<(u16, u16, u32, u32, Vec<u8>)> {
    let mut out = Vec::new();
    while b.len() >= 16 {
        let len = u32::from_le_bytes(b[..4].try_into().unwrap()) as usize;
        assert!(len >= 16 && align4(len) <= b.len(), "bad length {len} of {}", b.len());
        let h = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        out.push((u16::from_le_bytes([b[4], b[5]]), u16::from_le_bytes([b[6], b[7]]), h(8), h(12), b[16..len].to_vec()));
        b = &b[align4(len)..];
    }
    assert!(b.is_empty());
    out
}

fn attrs(b: &[u8]) -> Vec<(u16, Vec<u8>)> {
    attributes(b).map(|(t, v)| (t, v.to_vec())).collect()
}

const MULTI: Reply = Reply { seq: 1, pid: 1, flags: NLM_F_MULTI };

#[test]
fn request_as_go_sends_it() {
    // syscall.newNetlinkRouteRequest(RTM_GETLINK, 1, AF_UNSPEC): 17 bytes.
    let wire = [17, 0, 0, 0, 18, 0, 0x01, 0x03, 1, 0, 0, 0, 0, 0, 0, 0, 0];
    let r = parse(&wire).unwrap();
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].kind, r[0].seq, r[0].family()), (RTM_GETLINK, 1, AF_UNSPEC));
    assert!(r[0].is_dump());
    // A header whose length runs past what was sent is malformed.
    assert!(parse(&wire[..16]).is_err());
    // A length past the buffer is malformed.
    let mut bad = wire;
    bad[0] = 40;
    assert!(parse(&bad).is_err());
}

#[test]
fn getlink_by_name() {
    let mut wire = Vec::new();
    let body_len = 16 + 16 + 12; // header, ifinfomsg, IFLA_IFNAME "eth0\0" padded
    wire.extend_from_slice(&(body_len as u32).to_le_bytes());
    wire.extend_from_slice(&RTM_GETLINK.to_le_bytes());
    wire.extend_from_slice(&NLM_F_REQUEST.to_le_bytes());
    wire.extend_from_slice(&[7, 0, 0, 0, 0, 0, 0, 0]);
    wire.extend_from_slice(&[0; 16]);
    wire.extend_from_slice(&[9, 0, 3, 0, b'e', b't', b'h', b'0', 0, 0, 0, 0]);
    let r = parse(&wire).unwrap();
    assert_eq!(r[0].link_name(), Some(&b"eth0"[..]));
    assert_eq!(r[0].link_index(), 0);
    assert!(!r[0].is_dump());
}

#[test]
fn loopback_link_matches_linux() {
    let lo = Link { index: 1, name: "lo", kind: ARPHRD_LOOPBACK, flags: IFF_UP | IFF_LOOPBACK | IFF_RUNNING | IFF_LOWER_UP, mtu: 65536, address: [0; 6], broadcast: [0; 6], txqlen: 1000, operstate: 0 };
    let msgs = split(&link(MULTI, &lo));
    assert_eq!(msgs.len(), 1);
    let (kind, flags, seq, pid, data) = &msgs[0];
    assert_eq!((*kind, *flags, *seq, *pid), (RTM_NEWLINK, NLM_F_MULTI, 1, 1));
    // Linux: ifinfomsg 00 00 0403 01000000 49000100 00000000.
    assert_eq!(data[..16], [0, 0, 0x04, 0x03, 1, 0, 0, 0, 0x49, 0, 1, 0, 0, 0, 0, 0]);
    let a = attrs(&data[16..]);
    for want in [(3u16, b"lo\0".to_vec()), (13, vec![0xe8, 3, 0, 0]), (16, vec![0]), (4, vec![0, 0, 1, 0]), (1, vec![0; 6]), (2, vec![0; 6])] {
        assert!(a.contains(&want), "missing {want:?} in {a:?}");
    }
}

#[test]
fn ethernet_link_has_its_address() {
    let mac = [0x52, 0x54, 0, 0x12, 0x34, 0x56];
    let eth = Link { index: 2, name: "eth0", kind: ARPHRD_ETHER, flags: IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST | IFF_LOWER_UP, mtu: 1500, address: mac, broadcast: [0xff; 6], txqlen: 1000, operstate: 6 };
    let (_, _, _, _, data) = split(&link(MULTI, &eth)).remove(0);
    assert_eq!(data[2..4], ARPHRD_ETHER.to_le_bytes());
    assert_eq!(u32::from_le_bytes(data[8..12].try_into().unwrap()), 0x11043);
    let a = attrs(&data[16..]);
    assert!(a.contains(&(1, mac.to_vec())) && a.contains(&(3, b"eth0\0".to_vec())) && a.contains(&(4, 1500u32.to_le_bytes().to_vec())));
}

#[test]
fn ipv4_address_matches_linux() {
    // Linux: 02 18 80 00 04000000, then ADDRESS, LOCAL, BROADCAST, LABEL, FLAGS.
    let a = Addr { family: AF_INET, prefix: 24, scope: RT_SCOPE_UNIVERSE, index: 4, address: &[192, 0, 2, 2], broadcast: Some([192, 0, 2, 255]), label: "eth0" };
    let (kind, _, _, _, data) = split(&addr(MULTI, &a)).remove(0);
    assert_eq!(kind, RTM_NEWADDR);
    assert_eq!(data[..8], [2, 0x18, 0x80, 0, 4, 0, 0, 0]);
    assert_eq!(
        attrs(&data[8..]),
        vec![(1, vec![192, 0, 2, 2]), (2, vec![192, 0, 2, 2]), (4, vec![192, 0, 2, 255]), (3, b"eth0\0".to_vec()), (8, vec![0x80, 0, 0, 0])]
    );
    let lo6 = Addr { family: AF_INET6, prefix: 128, scope: RT_SCOPE_HOST, index: 1, address: &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], broadcast: None, label: "lo" };
    let (_, _, _, _, data) = split(&addr(MULTI, &lo6)).remove(0);
    assert_eq!(data[..8], [10, 128, 0x80, 254, 1, 0, 0, 0]);
    assert_eq!(attrs(&data[8..])[0].1.len(), 16);
}

#[test]
fn routes_match_linux() {
    // Linux: default via 192.0.2.1 dev 4: 02 00 00 00 fe 03 00 01, flags 0;
    // TABLE, GATEWAY, OIF.
    let gw = [192, 0, 2, 1];
    let def = Route { family: AF_INET, dst_len: 0, table: RT_TABLE_MAIN, protocol: RTPROT_BOOT, scope: RT_SCOPE_UNIVERSE, kind: RTN_UNICAST, dst: None, gateway: Some(&gw), prefsrc: None, oif: 4, priority: None };
    let (kind, _, _, _, data) = split(&route(MULTI, &def)).remove(0);
    assert_eq!(kind, RTM_NEWROUTE);
    assert_eq!(data[..12], [2, 0, 0, 0, 0xfe, 3, 0, 1, 0, 0, 0, 0]);
    assert_eq!(attrs(&data[12..]), vec![(15, vec![0xfe, 0, 0, 0]), (5, gw.to_vec()), (4, vec![4, 0, 0, 0])]);
}

#[test]
fn done_and_errors() {
    let d = done(Reply { seq: 9, pid: 5, flags: 0 });
    assert_eq!(d, [20, 0, 0, 0, 3, 0, 2, 0, 9, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]);
    let req = parse(&[20, 0, 0, 0, 99, 0, 5, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]).unwrap().remove(0);
    let e = error(5, &req, 95);
    let (kind, _, seq, pid, data) = split(&e).remove(0);
    assert_eq!((kind, seq, pid), (NLMSG_ERROR, 3, 5));
    assert_eq!(i32::from_le_bytes(data[..4].try_into().unwrap()), -95);
    assert_eq!(data[4..20], req.header);
    assert_eq!(data[20..], [1, 2, 3, 4]);
    let ack = error(5, &req, 0);
    assert_eq!(ack.len(), 36);
}

#[test]
fn pack_keeps_messages_whole() {
    let m = |n: usize| vec![0u8; n];
    let d = pack(vec![m(1000), m(2000), m(1500), m(100)], 4096);
    assert_eq!(d.iter().map(|x| x.len()).collect::<Vec<_>>(), vec![3000, 1600]);
}
