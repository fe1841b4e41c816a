//! The network files under /proc/net: dev, tcp, tcp6, udp, udp6, route,
//! snmp (net/core/net-procfs.c, net/ipv4/tcp_ipv4.c, udp.c, fib_trie.c,
//! proc.c). Addresses are printed as Linux prints them: each 32-bit word
//! of the address in network order read as a little-endian number.

use alloc::string::String;
use core::fmt::Write;

/// One interface's counters for /proc/net/dev.
#[derive(Clone, Copy, Debug, Default)]
pub struct DevCounters<'a> {
    pub name: &'a str,
    pub rx_bytes: u64,
    pub rx_packets: u64,
    pub rx_errors: u64,
    pub rx_dropped: u64,
    pub tx_bytes: u64,
    pub tx_packets: u64,
    pub tx_errors: u64,
    pub tx_dropped: u64,
}

/// /proc/net/dev.
pub fn dev(list: &[DevCounters]) -> String {
    let mut o = String::from(
        "Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n",
    );
    for d in list {
        let _ = writeln!(
            o,
            "{:>6}: {:7} {:7} {:4} {:4} {:4} {:5} {:10} {:9} {:8} {:7} {:4} {:4} {:4} {:5} {:7} {:10}",
            d.name, d.rx_bytes, d.rx_packets, d.rx_errors, d.rx_dropped, 0, 0, 0, 0, d.tx_bytes, d.tx_packets, d.tx_errors, d.tx_dropped, 0, 0, 0, 0
        );
    }
    o
}

/// TCP states as /proc/net/tcp numbers them (include/net/tcp_states.h).
pub mod tcp_state {
    pub const ESTABLISHED: u8 = 1;
    pub const SYN_SENT: u8 = 2;
    pub const SYN_RECV: u8 = 3;
    pub const FIN_WAIT1: u8 = 4;
    pub const FIN_WAIT2: u8 = 5;
    pub const TIME_WAIT: u8 = 6;
    pub const CLOSE: u8 = 7;
    pub const CLOSE_WAIT: u8 = 8;
    pub const LAST_ACK: u8 = 9;
    pub const LISTEN: u8 = 10;
    pub const CLOSING: u8 = 11;
}

/// An internet socket: one line of tcp, tcp6, udp or udp6. Addresses are
/// 16 bytes; an IPv4 socket uses the first 4.
#[derive(Clone, Copy, Debug, Default)]
pub struct InetSocket {
    pub local: [u8; 16],
    pub local_port: u16,
    pub remote: [u8; 16],
    pub remote_port: u16,
    pub state: u8,
    pub tx_queue: u32,
    pub rx_queue: u32,
    pub inode: u64,
}

fn word(a: &[u8; 16], i: usize) -> u32 {
    u32::from_le_bytes([a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]])
}

fn addr(o: &mut String, a: &[u8; 16], port: u16, v6: bool) {
    let words = if v6 { 4 } else { 1 };
    for i in 0..words {
        let _ = write!(o, "{:08X}", word(a, i));
    }
    let _ = write!(o, ":{port:04X}");
}

fn pad(o: &mut String, from: usize, width: usize) {
    while o.len() - from < width {
        o.push(' ');
    }
    o.push('\n');
}

const V6_HEADER: &str = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";

/// /proc/net/tcp (IPv4, lines padded to 149 columns) or tcp6.
pub fn tcp(list: &[InetSocket], v6: bool) -> String {
    let mut o = String::new();
    if v6 {
        o.push_str(V6_HEADER);
        o.push('\n');
    } else {
        let _ = writeln!(o, "{:<149}", "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode");
    }
    for (i, s) in list.iter().enumerate() {
        let begin = o.len();
        let _ = write!(o, "{i:4}: ");
        addr(&mut o, &s.local, s.local_port, v6);
        o.push(' ');
        addr(&mut o, &s.remote, s.remote_port, v6);
        let _ = write!(o, " {:02X} {:08X}:{:08X} 00:00000000 00000000 {:5} {:8} {} 1 0000000000000000 100 0 0 10 0", s.state, s.tx_queue, s.rx_queue, 0, 0, s.inode);
        if v6 {
            o.push('\n');
        } else {
            pad(&mut o, begin, 149);
        }
    }
    o
}

/// /proc/net/udp (IPv4, lines padded to 127 columns) or udp6.
pub fn udp(list: &[InetSocket], v6: bool) -> String {
    let mut o = String::new();
    if v6 {
        o.push_str(V6_HEADER);
        o.push_str(" ref pointer drops\n");
    } else {
        let _ = writeln!(o, "{:<127}", "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops");
    }
    for (i, s) in list.iter().enumerate() {
        let begin = o.len();
        let _ = write!(o, "{i:5}: ");
        addr(&mut o, &s.local, s.local_port, v6);
        o.push(' ');
        addr(&mut o, &s.remote, s.remote_port, v6);
        let _ = write!(o, " {:02X} {:08X}:{:08X} 00:00000000 00000000 {:5} {:8} {} 2 0000000000000000 0", s.state, s.tx_queue, s.rx_queue, 0, 0, s.inode);
        if v6 {
            o.push('\n');
        } else {
            pad(&mut o, begin, 127);
        }
    }
    o
}

/// An IPv4 route of /proc/net/route.
#[derive(Clone, Copy, Debug)]
pub struct Route<'a> {
    pub iface: &'a str,
    pub destination: [u8; 4],
    pub gateway: [u8; 4],
    pub mask: [u8; 4],
    pub metric: u32,
}

/// /proc/net/route (lines padded to 127 columns). Flags: RTF_UP, and
/// RTF_GATEWAY for a route through a gateway.
pub fn route(list: &[Route]) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{:<127}", "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT");
    for r in list {
        let begin = o.len();
        let flags = if r.gateway == [0; 4] { 1 } else { 3 };
        let le = |a: [u8; 4]| u32::from_le_bytes(a);
        let _ = write!(o, "{}\t{:08X}\t{:08X}\t{:04X}\t0\t0\t{}\t{:08X}\t0\t0\t0", r.iface, le(r.destination), le(r.gateway), flags, r.metric, le(r.mask));
        pad(&mut o, begin, 127);
    }
    o
}

/// An IPv6 address of an interface, for /proc/net/if_inet6.
#[derive(Clone, Copy, Debug)]
pub struct Inet6Addr<'a> {
    pub address: [u8; 16],
    pub index: u32,
    pub prefix: u8,
    /// IPV6_ADDR_LOOPBACK 0x10, _LINKLOCAL 0x20, _SITELOCAL 0x40, global 0.
    pub scope: u8,
    /// IFA_F_PERMANENT 0x80.
    pub flags: u8,
    pub name: &'a str,
}

/// /proc/net/if_inet6: one line per address, no header.
pub fn if_inet6(list: &[Inet6Addr]) -> String {
    let mut o = String::new();
    for a in list {
        for b in a.address {
            let _ = write!(o, "{b:02x}");
        }
        let _ = writeln!(o, " {:02x} {:02x} {:02x} {:02x} {:>8}", a.index, a.prefix, a.scope, a.flags, a.name);
    }
    o
}

/// /proc/net/snmp: for each protocol a line of names and a line of values.
pub fn snmp(sections: &[(&str, &[(&str, i64)])]) -> String {
    let mut o = String::new();
    for (proto, fields) in sections {
        let _ = write!(o, "{proto}:");
        for (name, _) in fields.iter() {
            let _ = write!(o, " {name}");
        }
        let _ = write!(o, "\n{proto}:");
        for (_, v) in fields.iter() {
            let _ = write!(o, " {v}");
        }
        o.push('\n');
    }
    o
}
