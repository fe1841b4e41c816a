//! Socket options: which (level, name) pairs exist, how their values are
//! laid out, and Linux's rules for the buffer sizes. The socket keeps the
//! values; this table decides what getsockopt/setsockopt accept, so an
//! option Go sets (TCP_NODELAY, SO_KEEPALIVE, TCP_KEEPIDLE, IPV6_V6ONLY...)
//! succeeds and an unknown one is ENOPROTOOPT, as on Linux.

pub const SOL_SOCKET: i32 = 1;
pub const IPPROTO_IP: i32 = 0;
pub const IPPROTO_TCP: i32 = 6;
pub const IPPROTO_UDP: i32 = 17;
pub const IPPROTO_IPV6: i32 = 41;

/// An option gometal knows, grouped by what the kernel does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SockOpt {
    /// Read-only facts of the socket.
    Type,
    Error,
    AcceptConn,
    Domain,
    Protocol,
    /// Buffer sizes (stored doubled, as Linux does).
    RcvBuf,
    SndBuf,
    /// Bind rules.
    ReuseAddr,
    ReusePort,
    V6Only,
    /// struct linger (two ints).
    Linger,
    /// struct timeval (SO_RCVTIMEO/SO_SNDTIMEO, the _OLD 64-bit layout).
    RcvTimeo,
    SndTimeo,
    /// An int the kernel keeps and reports back; it changes nothing on
    /// loopback (TCP_NODELAY: gometal never delays a send).
    Flag(i32, i32),
}

/// The value's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Int,
    Linger,
    Timeval,
}

impl SockOpt {
    pub fn layout(self) -> Layout {
        match self {
            SockOpt::Linger => Layout::Linger,
            SockOpt::RcvTimeo | SockOpt::SndTimeo => Layout::Timeval,
            _ => Layout::Int,
        }
    }

    /// Options a program may only read.
    pub fn read_only(self) -> bool {
        matches!(self, SockOpt::Type | SockOpt::Error | SockOpt::AcceptConn | SockOpt::Domain | SockOpt::Protocol)
    }

    /// The option `name` at `level`, or None (ENOPROTOOPT).
    pub fn lookup(level: i32, name: i32) -> Option<SockOpt> {
        use SockOpt::*;
        let flag = Some(Flag(level, name));
        match (level, name) {
            (SOL_SOCKET, 3) => Some(Type),
            (SOL_SOCKET, 4) => Some(Error),
            (SOL_SOCKET, 30) => Some(AcceptConn),
            (SOL_SOCKET, 39) => Some(Domain),
            (SOL_SOCKET, 38) => Some(Protocol),
            (SOL_SOCKET, 8) => Some(RcvBuf),
            (SOL_SOCKET, 7) => Some(SndBuf),
            (SOL_SOCKET, 2) => Some(ReuseAddr),
            (SOL_SOCKET, 15) => Some(ReusePort),
            (SOL_SOCKET, 13) => Some(Linger),
            (SOL_SOCKET, 20) => Some(RcvTimeo),
            (SOL_SOCKET, 21) => Some(SndTimeo),
            // SO_DEBUG, SO_DONTROUTE, SO_BROADCAST, SO_KEEPALIVE,
            // SO_OOBINLINE, SO_PRIORITY, SO_PASSCRED, SO_RCVLOWAT.
            (SOL_SOCKET, 1 | 5 | 6 | 9 | 10 | 12 | 16 | 18) => flag,
            (IPPROTO_IPV6, 26) => Some(V6Only),
            // TCP_NODELAY, TCP_MAXSEG, TCP_CORK, TCP_KEEPIDLE, TCP_KEEPINTVL,
            // TCP_KEEPCNT, TCP_LINGER2, TCP_QUICKACK, TCP_USER_TIMEOUT.
            (IPPROTO_TCP, 1 | 2 | 3 | 4 | 5 | 6 | 8 | 12 | 18) => flag,
            // IP_TOS, IP_TTL, IP_MULTICAST_IF/TTL/LOOP; IP_PKTINFO,
            // IP_RECVTTL, IP_RECVTOS (control messages, cmsg.rs);
            // IP_MTU_DISCOVER, IP_RECVERR (QUIC stacks set them).
            (IPPROTO_IP, 1 | 2 | 32 | 33 | 34 | 8 | 12 | 13 | 10 | 11) => flag,
            // IPV6_UNICAST_HOPS, IPV6_MULTICAST_IF/HOPS/LOOP, IPV6_TCLASS;
            // IPV6_RECVPKTINFO, IPV6_RECVHOPLIMIT, IPV6_RECVTCLASS;
            // IPV6_MTU_DISCOVER, IPV6_RECVERR, IPV6_DONTFRAG.
            (IPPROTO_IPV6, 16 | 17 | 18 | 19 | 67 | 49 | 51 | 66 | 23 | 25 | 62) => flag,
            _ => None,
        }
    }
}

/// What a stored option reads before any setsockopt (Linux's defaults:
/// TTL and hop limit 64, one multicast hop, multicast loop on, keepalive
/// after 7200 s every 75 s nine times; the rest 0).
pub fn default_value(level: i32, name: i32) -> i32 {
    match (level, name) {
        (IPPROTO_IP, 2) | (IPPROTO_IPV6, 16) => 64,
        (IPPROTO_IP, 33 | 34) | (IPPROTO_IPV6, 18 | 19) => 1,
        // IP_PMTUDISC_WANT, IPV6_PMTUDISC_WANT.
        (IPPROTO_IP, 10) | (IPPROTO_IPV6, 23) => 1,
        (IPPROTO_TCP, 2) => 536,
        (IPPROTO_TCP, 4) => 7200,
        (IPPROTO_TCP, 5) => 75,
        (IPPROTO_TCP, 6) => 9,
        _ => 0,
    }
}

/// Options Linux stores as a yes/no (setting 5 reads back 1).
pub fn is_bool(level: i32, name: i32) -> bool {
    matches!(
        (level, name),
        (SOL_SOCKET, 1 | 2 | 5 | 6 | 9 | 10 | 15 | 16) | (IPPROTO_TCP, 1 | 3 | 12) | (IPPROTO_IP, 8 | 11 | 12 | 13) | (IPPROTO_IPV6, 25 | 26 | 49 | 51 | 62 | 66)
    )
}

/// net.core.rmem_max and wmem_max: the most SO_RCVBUF/SO_SNDBUF may ask.
pub const BUF_MAX: i32 = 212_992;
/// SOCK_MIN_RCVBUF and SOCK_MIN_SNDBUF.
const MIN_RCVBUF: i32 = 2304;
const MIN_SNDBUF: i32 = 4608;

/// What SO_RCVBUF/SO_SNDBUF reads back after a program set `requested`:
/// clamped to the maximum, doubled (for bookkeeping overhead), and at
/// least the minimum.
pub fn buffer_size(requested: i32, send: bool) -> i32 {
    let min = if send { MIN_SNDBUF } else { MIN_RCVBUF };
    requested.clamp(0, BUF_MAX).saturating_mul(2).max(min)
}

/// The default defaults (before any setsockopt): tcp_rmem[1] and
/// tcp_wmem[1] for TCP, rmem_default/wmem_default otherwise.
pub fn default_buffer(tcp: bool, send: bool) -> i32 {
    match (tcp, send) {
        (true, false) => 131_072,
        (true, true) => 16_384,
        _ => BUF_MAX,
    }
}

/// net.core.somaxconn: listen's backlog is capped here (Linux 5.4+: 4096).
pub const SOMAXCONN: i32 = 4096;

/// The accept-queue length listen(backlog) gives (a negative or too large
/// backlog means the maximum, as on Linux).
pub fn backlog(requested: i32) -> usize {
    if !(0..=SOMAXCONN).contains(&requested) {
        SOMAXCONN as usize
    } else {
        requested as usize
    }
}

/// How long a blocking call may wait under SO_RCVTIMEO/SO_SNDTIMEO set to
/// (sec, usec), as Linux's sock_set_timeout reads the timeval: EDOM for
/// microseconds outside 0..1_000_000; zero means no limit (None); a
/// negative time means no waiting at all (Some(0): the call fails with
/// EAGAIN at once, like a non-blocking one).
pub fn timeout_ns(sec: i64, usec: i64) -> Result<Option<u64>, crate::errno::Errno> {
    if !(0..1_000_000).contains(&usec) {
        return Err(crate::errno::EDOM);
    }
    if sec < 0 {
        return Ok(Some(0));
    }
    if sec == 0 && usec == 0 {
        return Ok(None);
    }
    Ok(Some((sec as u64).saturating_mul(1_000_000_000).saturating_add(usec as u64 * 1000)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_options_are_known() {
        for (level, name) in [(1, 2), (1, 9), (1, 6), (1, 4), (6, 1), (6, 4), (6, 5), (6, 6), (41, 26), (1, 7), (1, 8), (1, 15)] {
            assert!(SockOpt::lookup(level, name).is_some(), "{level},{name}");
        }
        assert_eq!(SockOpt::lookup(1, 999), None);
        assert_eq!(SockOpt::lookup(99, 1), None);
        assert!(SockOpt::lookup(1, 4).unwrap().read_only());
        assert_eq!(SockOpt::lookup(1, 13).unwrap().layout(), Layout::Linger);
    }

    #[test]
    fn defaults_and_bools() {
        assert_eq!(default_value(IPPROTO_IP, 2), 64);
        assert_eq!(default_value(IPPROTO_TCP, 4), 7200);
        assert_eq!(default_value(SOL_SOCKET, 9), 0);
        assert!(is_bool(IPPROTO_TCP, 1) && is_bool(SOL_SOCKET, 9));
        assert!(!is_bool(IPPROTO_TCP, 4));
    }

    #[test]
    fn buffer_rules() {
        assert_eq!(buffer_size(1000, false), 2304);
        assert_eq!(buffer_size(65536, false), 131072);
        assert_eq!(buffer_size(1 << 30, true), 2 * BUF_MAX);
        assert_eq!(buffer_size(-5, true), 4608);
    }

    #[test]
    fn backlog_rules() {
        assert_eq!(backlog(128), 128);
        assert_eq!(backlog(-1), 4096);
        assert_eq!(backlog(1 << 20), 4096);
        assert_eq!(backlog(0), 0);
    }

    #[test]
    fn timeouts() {
        assert_eq!(timeout_ns(0, 0), Ok(None));
        assert_eq!(timeout_ns(1, 500_000), Ok(Some(1_500_000_000)));
        assert_eq!(timeout_ns(0, 1), Ok(Some(1000)));
        assert_eq!(timeout_ns(-1, 0), Ok(Some(0)));
        assert_eq!(timeout_ns(1, 1_000_000), Err(crate::errno::EDOM));
        assert_eq!(timeout_ns(1, -1), Err(crate::errno::EDOM));
        assert_eq!(timeout_ns(i64::MAX, 0), Ok(Some(u64::MAX)));
    }
}
