//! /proc/net: the interfaces' counters, the program's internet sockets
//! (every socket belongs to the one process, so its descriptors list them
//! all, but for connections still in a listener's queue), the IPv4 routes
//! and the SNMP counters' layout.

use crate::net::nic;
use crate::net::socket::{Family, SockType, Socket, State};
use crate::process::process;
use alloc::string::String;
use alloc::vec::Vec;
use gometal_core::procfs::net::{self as fmt, tcp_state, DevCounters, Inet6Addr, InetSocket, Route};
use gometal_core::linux::sockaddr::{InetAddr, SockAddr};

pub fn dev() -> String {
    let mut list = alloc::vec![DevCounters { name: "lo", ..DevCounters::default() }];
    if nic::present() {
        list.push(DevCounters { name: "eth0", rx_packets: nic::stats::FRAMES_IN.get(), tx_packets: nic::stats::FRAMES_OUT.get(), ..DevCounters::default() });
    }
    fmt::dev(&list)
}

/// The interfaces' IPv6 addresses (loopback ::1, site-local fec0::15).
pub fn if_inet6() -> String {
    let list: Vec<Inet6Addr> = crate::net::ifaces::list()
        .iter()
        .map(|i| {
            let scope = if i.index == crate::net::ifaces::LOOPBACK_INDEX { 0x10 } else { 0x40 };
            Inet6Addr { address: i.ipv6.0, index: i.index, prefix: i.ipv6.1, scope, flags: 0x80, name: i.name }
        })
        .collect();
    fmt::if_inet6(&list)
}

fn address(a: &InetAddr, v6_file: bool) -> [u8; 16] {
    let mut out = [0u8; 16];
    if v6_file {
        out = a.ip;
    } else {
        out[..4].copy_from_slice(&a.ip[12..16]);
    }
    out
}

/// The program's sockets of one kind: TCP or UDP, in an IPv6 file or not.
fn sockets(tcp: bool, v6: bool) -> Vec<InetSocket> {
    let files = process().fs.files.lock();
    let mut out = Vec::new();
    for (_, of, _) in files.open_fds() {
        let Some(s) = of.downcast::<Socket>() else { continue };
        let want_family = if v6 { Family::Inet6 } else { Family::Inet4 };
        let want_type = if tcp { SockType::Stream } else { SockType::Dgram };
        if s.family != want_family || s.ty != want_type || s.icmp.is_some() {
            continue;
        }
        let SockAddr::Inet(local) = s.local_addr() else { continue };
        let peer = match s.peer.lock().clone() {
            Some(SockAddr::Inet(p)) => Some(p),
            _ => None,
        };
        let state = match (&*s.state.lock(), tcp, &peer) {
            (State::Listening(_), _, _) => tcp_state::LISTEN,
            (State::Connected(_), _, _) => tcp_state::ESTABLISHED,
            (State::Idle, false, Some(_)) => tcp_state::ESTABLISHED,
            (State::Idle, _, _) => tcp_state::CLOSE,
        };
        let remote = peer.unwrap_or(InetAddr::v6([0; 16], 0));
        out.push(InetSocket {
            local: address(&local, v6),
            local_port: local.port,
            remote: if peer.is_some() { address(&remote, v6) } else { [0; 16] },
            remote_port: remote.port,
            state,
            tx_queue: 0,
            rx_queue: 0,
            inode: super::fds::object_ino(of),
        });
    }
    out
}

pub fn tcp() -> String {
    fmt::tcp(&sockets(true, false), false)
}

pub fn tcp6() -> String {
    fmt::tcp(&sockets(true, true), true)
}

pub fn udp() -> String {
    fmt::udp(&sockets(false, false), false)
}

pub fn udp6() -> String {
    fmt::udp(&sockets(false, true), true)
}

/// With the network device: its network (the IPv4 plan: slirp's or the
/// one `-net tap=...` gave) and the default route.
pub fn route() -> String {
    let mut list = Vec::new();
    if nic::present() {
        let plan = nic::addr::plan();
        let mask = (u32::MAX.checked_shl(32 - u32::from(plan.prefix.min(32))).unwrap_or(0)).to_be_bytes();
        let net: [u8; 4] = core::array::from_fn(|i| plan.addr[i] & mask[i]);
        list.push(Route { iface: "eth0", destination: [0; 4], gateway: plan.gateway, mask: [0; 4], metric: 0 });
        list.push(Route { iface: "eth0", destination: net, gateway: [0; 4], mask, metric: 0 });
    }
    fmt::route(&list)
}

/// /proc/net/netstat: the extended counters' layout (Prometheus's process
/// collector reads IpExt's InOctets and OutOctets), all 0.
pub fn netstat() -> String {
    let tcp_ext: Vec<(&str, i64)> = ["SyncookiesSent", "SyncookiesRecv", "SyncookiesFailed", "EmbryonicRsts", "PruneCalled", "ListenOverflows", "ListenDrops", "TCPTimeouts", "TCPLostRetransmit"].iter().map(|n| (*n, 0)).collect();
    let ip_ext: Vec<(&str, i64)> = ["InNoRoutes", "InTruncatedPkts", "InMcastPkts", "OutMcastPkts", "InBcastPkts", "OutBcastPkts", "InOctets", "OutOctets", "InMcastOctets", "OutMcastOctets", "InBcastOctets", "OutBcastOctets"].iter().map(|n| (*n, 0)).collect();
    fmt::snmp(&[("TcpExt", &tcp_ext), ("IpExt", &ip_ext)])
}

/// The SNMP MIB's layout with the values gometal knows: constants, and
/// the TCP connections established now; packet counters read 0.
pub fn snmp() -> String {
    let established = (sockets(true, false).iter().chain(sockets(true, true).iter())).filter(|s| s.state == tcp_state::ESTABLISHED).count() as i64;
    let ip: Vec<(&str, i64)> = [
        "InReceives", "InHdrErrors", "InAddrErrors", "ForwDatagrams", "InUnknownProtos", "InDiscards", "InDelivers", "OutRequests", "OutDiscards", "OutNoRoutes", "ReasmTimeout", "ReasmReqds", "ReasmOKs", "ReasmFails", "FragOKs", "FragFails", "FragCreates", "OutTransmits",
    ]
    .iter()
    .fold(alloc::vec![("Forwarding", 2), ("DefaultTTL", 64)], |mut v, n| {
        v.push((n, 0));
        v
    });
    let icmp: Vec<(&str, i64)> = [
        "InMsgs", "InErrors", "InCsumErrors", "InDestUnreachs", "InTimeExcds", "InParmProbs", "InSrcQuenchs", "InRedirects", "InEchos", "InEchoReps", "InTimestamps", "InTimestampReps", "InAddrMasks", "InAddrMaskReps", "OutMsgs", "OutErrors", "OutRateLimitGlobal", "OutRateLimitHost", "OutDestUnreachs", "OutTimeExcds", "OutParmProbs", "OutSrcQuenchs", "OutRedirects", "OutEchos", "OutEchoReps", "OutTimestamps", "OutTimestampReps", "OutAddrMasks", "OutAddrMaskReps",
    ]
    .iter()
    .map(|n| (*n, 0))
    .collect();
    let tcp: Vec<(&str, i64)> = alloc::vec![
        ("RtoAlgorithm", 1), ("RtoMin", 200), ("RtoMax", 120000), ("MaxConn", -1), ("ActiveOpens", 0), ("PassiveOpens", 0), ("AttemptFails", 0), ("EstabResets", 0), ("CurrEstab", established), ("InSegs", 0), ("OutSegs", 0), ("RetransSegs", 0), ("InErrs", 0), ("OutRsts", 0), ("InCsumErrors", 0),
    ];
    let udp: Vec<(&str, i64)> = ["InDatagrams", "NoPorts", "InErrors", "OutDatagrams", "RcvbufErrors", "SndbufErrors", "InCsumErrors", "IgnoredMulti", "MemErrors"].iter().map(|n| (*n, 0)).collect();
    fmt::snmp(&[("Ip", &ip), ("Icmp", &icmp), ("Tcp", &tcp), ("Udp", &udp), ("UdpLite", &udp)])
}
