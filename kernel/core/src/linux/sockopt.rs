//! Socket options: which (level, name) pairs exist, how their values are
//! laid out, and Linux's rules for the buffer sizes. The socket keeps the
//! values; this table decides what getsockopt/setsockopt accept, so an
//! option Go sets (TCP_NODELAY, SO_KEEPALIVE, TCP_KEEPIDLE, IPV6_V6ONLY...)
//! succeeds and an unknown one is ENOPROTOOPT, as on Linux.

pub use crate::linux::sockoptval::{default_value, rule, stored_value, Rule};
pub use crate::linux::sockoptval::{IPPROTO_IP, IPPROTO_IPV6, IPPROTO_TCP, IPPROTO_UDP, SOL_SOCKET};

/// An option gometal knows, grouped by what the kernel does with it. The
/// table of every option, with what each does here, is docs/syscalls.md's
/// "Socket options"; the stored ints' rules and defaults are sockoptval.rs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SockOpt {
    /// Read-only facts of the socket.
    Type,
    Error,
    AcceptConn,
    Domain,
    Protocol,
    /// SO_PEERCRED (struct ucred), SO_PEERNAME, SO_PEERGROUPS.
    PeerCred,
    PeerName,
    PeerGroups,
    /// SO_COOKIE, SO_NETNS_COOKIE (u64), SO_MEMINFO (u32[9]).
    Cookie,
    NetnsCookie,
    MemInfo,
    /// IP_MTU, IPV6_MTU: the path MTU of a connected socket.
    Mtu,
    /// Buffer sizes (stored doubled, as Linux does); the FORCE forms
    /// skip the rmem_max/wmem_max cap and cannot be read.
    RcvBuf,
    SndBuf,
    RcvBufForce,
    SndBufForce,
    /// SO_BUF_LOCK: which buffer sizes the program fixed.
    BufLock,
    /// Bind rules.
    ReuseAddr,
    ReusePort,
    V6Only,
    /// struct linger (two ints).
    Linger,
    /// struct timeval (SO_RCVTIMEO/SO_SNDTIMEO, _OLD and _NEW: the same
    /// 16 bytes on a 64-bit machine).
    RcvTimeo,
    SndTimeo,
    /// SO_SNDLOWAT: reads 1, cannot be set (Linux's ENOPROTOOPT).
    SndLowat,
    /// Classic BPF: SO_ATTACH_FILTER (set) / SO_GET_FILTER (get),
    /// SO_DETACH_FILTER, SO_LOCK_FILTER.
    Filter,
    DetachFilter,
    LockFilter,
    /// SO_ATTACH_BPF, SO_ATTACH_REUSEPORT_EBPF: an eBPF program's fd,
    /// which no descriptor here can be (there is no bpf(2)).
    AttachBpf,
    /// SO_BINDTODEVICE (a name), SO_BINDTOIFINDEX (an index).
    BindToDevice,
    BindToIfindex,
    /// SO_TXTIME (struct sock_txtime).
    TxTime,
    /// SO_MAX_PACING_RATE (unsigned long; 4 or 8 bytes).
    MaxPacingRate,
    /// Answered as Linux answers on a socket without the feature:
    /// SO_ZEROCOPY and SO_RESERVE_MEM (EOPNOTSUPP to set, read 0).
    Unsupported,
    /// SO_PEEK_OFF: EOPNOTSUPP both ways (no peek offsets).
    PeekOff,
    /// SO_DETACH_REUSEPORT_BPF: nothing is ever attached.
    DetachReuseportBpf,
    /// SO_CNX_ADVICE: set-only, nothing to advise.
    CnxAdvice,
    /// TCP_DEFER_ACCEPT: kept as SYN-ACK retransmissions, as Linux keeps it.
    DeferAccept,
    /// TCP_CONGESTION: an algorithm's name.
    Congestion,
    /// An int the kernel keeps and reports back, checked by sockoptval's
    /// `rule`.
    Flag(i32, i32),
}

/// The value's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Int,
    Linger,
    Timeval,
    /// The bytes decide (filters, names, structs): the kernel reads them.
    Bytes,
}

impl SockOpt {
    pub fn layout(self) -> Layout {
        use SockOpt::*;
        match self {
            Linger => Layout::Linger,
            RcvTimeo | SndTimeo => Layout::Timeval,
            Filter | BindToDevice | TxTime | MaxPacingRate | Congestion => Layout::Bytes,
            _ => Layout::Int,
        }
    }

    /// Options a program may only read (setsockopt is ENOPROTOOPT).
    pub fn read_only(self) -> bool {
        use SockOpt::*;
        matches!(self, Type | Error | AcceptConn | Domain | Protocol | PeerCred | PeerName | PeerGroups | Cookie | NetnsCookie | MemInfo | Mtu | SndLowat)
            || matches!(self, Flag(l, n) if rule(l, n) == Rule::Fixed)
    }

    /// Options a program may only set (getsockopt is ENOPROTOOPT).
    pub fn write_only(self) -> bool {
        use SockOpt::*;
        matches!(self, RcvBufForce | SndBufForce | DetachFilter | AttachBpf | DetachReuseportBpf | CnxAdvice)
    }

    /// The option `name` at `level`, or None (ENOPROTOOPT). Which socket
    /// kinds take a level is the kernel's `level_fits`.
    pub fn lookup(level: i32, name: i32) -> Option<SockOpt> {
        use SockOpt::*;
        Some(match (level, name) {
            (SOL_SOCKET, 3) => Type,
            (SOL_SOCKET, 4) => Error,
            (SOL_SOCKET, 30) => AcceptConn,
            (SOL_SOCKET, 39) => Domain,
            (SOL_SOCKET, 38) => Protocol,
            (SOL_SOCKET, 17) => PeerCred,
            (SOL_SOCKET, 28) => PeerName,
            (SOL_SOCKET, 59) => PeerGroups,
            (SOL_SOCKET, 57) => Cookie,
            (SOL_SOCKET, 71) => NetnsCookie,
            (SOL_SOCKET, 55) => MemInfo,
            (IPPROTO_IP, 14) | (IPPROTO_IPV6, 24) => Mtu,
            (SOL_SOCKET, 8) => RcvBuf,
            (SOL_SOCKET, 7) => SndBuf,
            (SOL_SOCKET, 33) => RcvBufForce,
            (SOL_SOCKET, 32) => SndBufForce,
            (SOL_SOCKET, 72) => BufLock,
            (SOL_SOCKET, 2) => ReuseAddr,
            (SOL_SOCKET, 15) => ReusePort,
            (SOL_SOCKET, 13) => Linger,
            (SOL_SOCKET, 20 | 66) => RcvTimeo,
            (SOL_SOCKET, 21 | 67) => SndTimeo,
            (SOL_SOCKET, 19) => SndLowat,
            (SOL_SOCKET, 26) => Filter,
            (SOL_SOCKET, 27) => DetachFilter,
            (SOL_SOCKET, 44) => LockFilter,
            (SOL_SOCKET, 50 | 52) => AttachBpf,
            (SOL_SOCKET, 25) => BindToDevice,
            (SOL_SOCKET, 62) => BindToIfindex,
            (SOL_SOCKET, 61) => TxTime,
            (SOL_SOCKET, 47) => MaxPacingRate,
            (SOL_SOCKET, 60 | 73) => Unsupported,
            (SOL_SOCKET, 42) => PeekOff,
            (SOL_SOCKET, 68) => DetachReuseportBpf,
            (SOL_SOCKET, 53) => CnxAdvice,
            (IPPROTO_IPV6, 26) => V6Only,
            (IPPROTO_TCP, 9) => DeferAccept,
            (IPPROTO_TCP, 13) => Congestion,
            _ if rule(level, name) != Rule::None => Flag(level, name),
            _ => return None,
        })
    }
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
    // Linux compares as unsigned (min_t(u32, val, max)): a negative size
    // asks for the most.
    let asked = if requested < 0 { BUF_MAX } else { requested.min(BUF_MAX) };
    asked.saturating_mul(2).max(min)
}

/// What SO_RCVBUFFORCE/SO_SNDBUFFORCE read back: as `buffer_size`
/// without the cap (at most INT_MAX / 2, doubled).
pub fn buffer_size_forced(requested: i32, send: bool) -> i32 {
    let min = if send { MIN_SNDBUF } else { MIN_RCVBUF };
    requested.clamp(0, i32::MAX / 2).saturating_mul(2).max(min)
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
pub fn timeout_ns(sec: i64, usec: i64) -> Result<Option<u64>, crate::linux::errno::Errno> {
    if !(0..1_000_000).contains(&usec) {
        return Err(crate::linux::errno::EDOM);
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
        assert!(SockOpt::lookup(1, 48).unwrap().read_only()); // SO_BPF_EXTENSIONS
        assert!(SockOpt::lookup(1, 27).unwrap().write_only()); // SO_DETACH_FILTER
        assert_eq!(SockOpt::lookup(1, 66), Some(SockOpt::RcvTimeo)); // SO_RCVTIMEO_NEW
        assert_eq!(SockOpt::lookup(6, 9), Some(SockOpt::DeferAccept));
        assert_eq!(SockOpt::lookup(1, 26).unwrap().layout(), Layout::Bytes);
        assert_eq!(SockOpt::lookup(1, 13).unwrap().layout(), Layout::Linger);
    }

    #[test]
    fn buffer_rules() {
        assert_eq!(buffer_size(1000, false), 2304);
        assert_eq!(buffer_size(65536, false), 131072);
        assert_eq!(buffer_size(1 << 30, true), 2 * BUF_MAX);
        assert_eq!(buffer_size(-5, true), 2 * BUF_MAX);
        assert_eq!(buffer_size_forced(1 << 20, false), 2 << 20);
        assert_eq!(buffer_size_forced(-5, false), 2304);
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
        assert_eq!(timeout_ns(1, 1_000_000), Err(crate::linux::errno::EDOM));
        assert_eq!(timeout_ns(1, -1), Err(crate::linux::errno::EDOM));
        assert_eq!(timeout_ns(i64::MAX, 0), Ok(Some(u64::MAX)));
    }
}
