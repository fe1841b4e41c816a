//! The socket options the kernel keeps as plain ints (sockopt.rs's
//! `SockOpt::Flag`): which exist, the values Linux lets a program set
//! (sk_setsockopt, do_ip_setsockopt, do_ipv6_setsockopt,
//! do_tcp_setsockopt, udp_lib_setsockopt), what they read before any
//! setsockopt; and TCP_DEFER_ACCEPT's conversion between seconds and
//! SYN-ACK retransmissions.

use crate::linux::errno::{Errno, EINVAL};

/// The option levels (setsockopt's second argument), as Linux numbers them.
pub const SOL_SOCKET: i32 = 1;
pub const IPPROTO_IP: i32 = 0;
pub const IPPROTO_TCP: i32 = 6;
pub const IPPROTO_UDP: i32 = 17;
pub const IPPROTO_IPV6: i32 = 41;

pub const SO_BPF_EXTENSIONS: i32 = 48;
pub const SO_INCOMING_NAPI_ID: i32 = 56;
pub const IP_PROTOCOL: i32 = 52;

/// How a stored int option takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Not a stored option.
    None,
    /// Any int, read back as set.
    Int,
    /// Stored as yes/no: setting 5 reads back 1.
    Bool,
    /// EINVAL outside lo..=hi.
    Range(i32, i32),
    /// Read-only: the kernel answers it.
    Fixed,
}

/// The rule of stored option (level, name); Rule::None if it is not one.
pub fn rule(level: i32, name: i32) -> Rule {
    use Rule::*;
    match (level, name) {
        // SO_DEBUG, SO_DONTROUTE, SO_BROADCAST, SO_KEEPALIVE, SO_OOBINLINE,
        // SO_NO_CHECK, SO_PASSCRED, SO_PASSSEC, SO_RXQ_OVFL,
        // SO_WIFI_STATUS, SO_NOFCS, SO_SELECT_ERR_QUEUE,
        // SO_PREFER_BUSY_POLL, SO_RCVMARK.
        (SOL_SOCKET, 1 | 5 | 6 | 9 | 10 | 11 | 16 | 34 | 40 | 41 | 43 | 45 | 69 | 75) => Bool,
        // SO_PRIORITY, SO_MARK, SO_INCOMING_CPU, SO_RCVLOWAT (mapped below).
        (SOL_SOCKET, 12 | 36 | 49 | 18) => Int,
        (SOL_SOCKET, 46) => Range(0, i32::MAX), // SO_BUSY_POLL
        (SOL_SOCKET, 70) => Range(0, 65535),    // SO_BUSY_POLL_BUDGET
        (SOL_SOCKET, SO_BPF_EXTENSIONS | SO_INCOMING_NAPI_ID) => Fixed,
        // IP_TOS, IP_MULTICAST_IF, IP_UNICAST_IF.
        (IPPROTO_IP, 1 | 32 | 50) => Int,
        // IP_TTL, IP_MULTICAST_TTL (-1: the default), IP_MINTTL.
        (IPPROTO_IP, 2 | 33) => Range(-1, 255),
        (IPPROTO_IP, 21) => Range(0, 255),
        (IPPROTO_IP, 10) => Range(0, 5), // IP_MTU_DISCOVER: IP_PMTUDISC_*
        // IP_RECVOPTS, IP_RETOPTS, IP_PKTINFO, IP_RECVERR, IP_RECVTTL,
        // IP_RECVTOS, IP_FREEBIND, IP_TRANSPARENT, IP_MULTICAST_LOOP,
        // IP_MULTICAST_ALL.
        (IPPROTO_IP, 6 | 7 | 8 | 11 | 12 | 13 | 15 | 19 | 34 | 49) => Bool,
        (IPPROTO_IP, IP_PROTOCOL) => Fixed,
        // IPV6_UNICAST_HOPS, IPV6_MULTICAST_HOPS, IPV6_TCLASS (-1: default).
        (IPPROTO_IPV6, 16 | 18 | 67) => Range(-1, 255),
        (IPPROTO_IPV6, 17 | 76) => Int, // IPV6_MULTICAST_IF, IPV6_UNICAST_IF
        (IPPROTO_IPV6, 23) => Range(0, 5), // IPV6_MTU_DISCOVER
        (IPPROTO_IPV6, 73) => Range(0, 255), // IPV6_MINHOPCOUNT
        // IPV6_MULTICAST_LOOP, IPV6_RECVERR, IPV6_MULTICAST_ALL,
        // IPV6_RECVPKTINFO, IPV6_RECVHOPLIMIT, IPV6_RECVHOPOPTS,
        // IPV6_RECVRTHDR, IPV6_RECVDSTOPTS, IPV6_RECVPATHMTU,
        // IPV6_DONTFRAG, IPV6_RECVTCLASS, IPV6_TRANSPARENT, IPV6_FREEBIND.
        (IPPROTO_IPV6, 19 | 25 | 29 | 49 | 51 | 53 | 56 | 58 | 60 | 62 | 66 | 75 | 78) => Bool,
        // TCP_NODELAY, TCP_CORK, TCP_QUICKACK, TCP_THIN_LINEAR_TIMEOUTS,
        // TCP_FASTOPEN_CONNECT, TCP_FASTOPEN_NO_COOKIE.
        (IPPROTO_TCP, 1 | 3 | 12 | 16 | 30 | 34) => Bool,
        (IPPROTO_TCP, 2 | 8 | 25) => Int, // TCP_MAXSEG, TCP_LINGER2, TCP_NOTSENT_LOWAT
        (IPPROTO_TCP, 4 | 5) => Range(1, 32767), // TCP_KEEPIDLE, TCP_KEEPINTVL
        (IPPROTO_TCP, 6 | 7) => Range(1, 127), // TCP_KEEPCNT, TCP_SYNCNT
        // TCP_WINDOW_CLAMP, TCP_USER_TIMEOUT, TCP_FASTOPEN.
        (IPPROTO_TCP, 10 | 18 | 23) => Range(0, i32::MAX),
        (IPPROTO_TCP, 27) => Range(0, 1), // TCP_SAVE_SYN
        // UDP_NO_CHECK6_TX, UDP_NO_CHECK6_RX, UDP_GRO.
        (IPPROTO_UDP, 101 | 102 | 104) => Bool,
        _ => None,
    }
}

/// What a stored option reads before any setsockopt (Linux's defaults:
/// TTL and hop limit 64, one multicast hop, multicast loop and
/// IP_MULTICAST_ALL on, path MTU discovery "want", SO_RCVLOWAT 1, no
/// SO_INCOMING_CPU yet (-1), 64 BPF extensions (SKF_AD_MAX), MSS 536,
/// keepalive after 7200 s every 75 s nine times, six SYN retries,
/// FIN-WAIT-2 for 60 s, quick ACKs on; the rest 0).
pub fn default_value(level: i32, name: i32) -> i32 {
    match (level, name) {
        (IPPROTO_IP, 2) | (IPPROTO_IPV6, 16) => 64,
        (IPPROTO_IP, 33 | 34 | 49 | 10) | (IPPROTO_IPV6, 18 | 19 | 29 | 23) => 1,
        (SOL_SOCKET, 18) => 1,
        (SOL_SOCKET, 49) => -1,
        (SOL_SOCKET, SO_BPF_EXTENSIONS) => 64,
        (IPPROTO_TCP, 2) => 536,
        (IPPROTO_TCP, 4) => 7200,
        (IPPROTO_TCP, 5) => 75,
        (IPPROTO_TCP, 6) => 9,
        (IPPROTO_TCP, 7) => 6,
        (IPPROTO_TCP, 8) => 60,
        (IPPROTO_TCP, 12) => 1,
        _ => 0,
    }
}

/// The value a stored option keeps when a program sets `v`, or EINVAL.
/// Linux maps a few: -1 hop limits, TTLs and traffic class mean the
/// default; SO_RCVLOWAT < 0 is INT_MAX and 0 is 1; TCP_LINGER2 < 0 is -1;
/// TCP_MAXSEG is 0 or 88..=65535.
pub fn stored_value(level: i32, name: i32, v: i32) -> Result<i32, Errno> {
    let v = match rule(level, name) {
        Rule::Bool => (v != 0) as i32,
        Rule::Range(lo, hi) if !(lo..=hi).contains(&v) => return Err(EINVAL),
        Rule::None | Rule::Fixed => return Err(EINVAL),
        _ => v,
    };
    Ok(match (level, name, v) {
        (IPPROTO_IP, 2 | 33, -1) | (IPPROTO_IPV6, 16 | 18 | 67, -1) => default_value(level, name),
        (SOL_SOCKET, 18, v) if v < 0 => i32::MAX,
        (SOL_SOCKET, 18, 0) => 1,
        (IPPROTO_TCP, 8, v) if v < 0 => -1,
        (IPPROTO_TCP, 2, v) if v != 0 && !(88..=65535).contains(&v) => return Err(EINVAL),
        (_, _, v) => v,
    })
}

/// TCP_DEFER_ACCEPT's seconds as SYN-ACK retransmissions (secs_to_retrans
/// with TCP_TIMEOUT_INIT 1 s doubling up to TCP_RTO_MAX 120 s): the
/// smallest count whose timeouts add up to at least `seconds`.
pub fn defer_retransmits(seconds: i32) -> u8 {
    if seconds <= 0 {
        return 0;
    }
    let (mut res, mut timeout, mut period) = (1u8, 1i32, 1i32);
    while seconds > period && res < 255 {
        res += 1;
        timeout = (timeout * 2).min(120);
        period += timeout;
    }
    res
}

/// What TCP_DEFER_ACCEPT reads back (retrans_to_secs): the seconds that
/// `retransmits` SYN-ACK timeouts add up to. Setting 5 reads back 7.
pub fn defer_seconds(retransmits: u8) -> i32 {
    if retransmits == 0 {
        return 0;
    }
    let (mut timeout, mut period) = (1i32, 1i32);
    for _ in 1..retransmits {
        timeout = (timeout * 2).min(120);
        period += timeout;
    }
    period
}

/// The congestion control algorithms TCP_CONGESTION accepts (Linux's
/// built-in pair; "cubic" is its default).
pub const CONGESTION: [&str; 2] = ["cubic", "reno"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_bools() {
        assert_eq!(default_value(IPPROTO_IP, 2), 64);
        assert_eq!(default_value(IPPROTO_TCP, 4), 7200);
        assert_eq!(default_value(IPPROTO_TCP, 8), 60);
        assert_eq!(default_value(IPPROTO_TCP, 12), 1);
        assert_eq!(default_value(SOL_SOCKET, 18), 1);
        assert_eq!(default_value(SOL_SOCKET, 9), 0);
        assert_eq!(stored_value(IPPROTO_TCP, 1, 5), Ok(1));
        assert_eq!(stored_value(SOL_SOCKET, 9, -3), Ok(1));
        assert_eq!(stored_value(IPPROTO_TCP, 4, 9), Ok(9));
    }

    #[test]
    fn linux_checks_and_maps() {
        assert_eq!(stored_value(IPPROTO_TCP, 4, 0), Err(EINVAL));
        assert_eq!(stored_value(IPPROTO_TCP, 4, 32768), Err(EINVAL));
        assert_eq!(stored_value(IPPROTO_TCP, 6, 128), Err(EINVAL));
        assert_eq!(stored_value(IPPROTO_IP, 2, 256), Err(EINVAL));
        assert_eq!(stored_value(IPPROTO_IP, 2, -1), Ok(64));
        assert_eq!(stored_value(IPPROTO_IPV6, 16, -1), Ok(64));
        assert_eq!(stored_value(SOL_SOCKET, 18, 0), Ok(1));
        assert_eq!(stored_value(SOL_SOCKET, 18, -1), Ok(i32::MAX));
        assert_eq!(stored_value(IPPROTO_TCP, 8, -7), Ok(-1));
        assert_eq!(stored_value(IPPROTO_TCP, 2, 87), Err(EINVAL));
        assert_eq!(stored_value(IPPROTO_TCP, 2, 0), Ok(0));
        assert_eq!(stored_value(SOL_SOCKET, 46, -1), Err(EINVAL));
        assert_eq!(stored_value(SOL_SOCKET, SO_BPF_EXTENSIONS, 1), Err(EINVAL));
        assert_eq!(stored_value(SOL_SOCKET, 999, 1), Err(EINVAL));
    }

    #[test]
    fn defer_accept_as_linux_rounds_it() {
        assert_eq!(defer_retransmits(0), 0);
        assert_eq!(defer_retransmits(-4), 0);
        assert_eq!(defer_retransmits(1), 1);
        assert_eq!(defer_retransmits(5), 3);
        assert_eq!(defer_seconds(3), 7);
        assert_eq!(defer_seconds(defer_retransmits(30)), 31);
        assert_eq!(defer_seconds(defer_retransmits(1)), 1);
        // Past TCP_RTO_MAX the timeouts stop doubling.
        assert_eq!(defer_seconds(8), 1 + 2 + 4 + 8 + 16 + 32 + 64 + 120);
        assert_eq!(defer_retransmits(i32::MAX), 255);
    }
}
