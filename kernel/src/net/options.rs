//! The option values a socket keeps (setsockopt/getsockopt): the ones that
//! change behaviour (SO_REUSEADDR, SO_REUSEPORT, IPV6_V6ONLY, the buffer
//! sizes, the BPF filter, TCP_DEFER_ACCEPT) as fields, the others as stored
//! ints reported back unchanged (docs/syscalls.md, "Socket options").

use super::socket::{Family, SockType};
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use gometal_core::net::cbpf::Filter;
use gometal_core::linux::sockopt::{buffer_size, default_buffer};

/// SO_BUF_LOCK's bits (SOCK_SNDBUF_LOCK, SOCK_RCVBUF_LOCK).
pub const SNDBUF_LOCK: i32 = 1;
pub const RCVBUF_LOCK: i32 = 2;

pub struct Options {
    pub reuse_addr: bool,
    pub reuse_port: bool,
    /// IPV6_V6ONLY: net.ipv6.bindv6only is 0, so dual-stack by default.
    pub v6only: bool,
    pub rcvbuf: i32,
    pub sndbuf: i32,
    /// SO_LINGER (on, seconds).
    pub linger: (i32, i32),
    /// SO_RCVTIMEO, SO_SNDTIMEO as (seconds, microseconds); blocking calls
    /// give up after them (timeo.rs). Go never sets them.
    pub rcvtimeo: (i64, i64),
    pub sndtimeo: (i64, i64),
    /// SO_ATTACH_FILTER's program (shared with accepted sockets, as
    /// Linux shares it) and SO_LOCK_FILTER.
    pub filter: Option<Arc<Filter>>,
    pub filter_locked: bool,
    /// TCP_DEFER_ACCEPT, as SYN-ACK retransmissions (sockoptval.rs).
    pub defer_accept: u8,
    /// SO_BINDTODEVICE / SO_BINDTOIFINDEX (0: none).
    pub bound_dev: i32,
    /// SO_BUF_LOCK: SNDBUF_LOCK | RCVBUF_LOCK.
    pub buf_lock: i32,
    /// SO_TXTIME (clock id, flags); SO_MAX_PACING_RATE.
    pub txtime: (i32, u32),
    pub max_pacing: u64,
    /// TCP_CONGESTION, an index into sockoptval::CONGESTION.
    pub congestion: usize,
    /// SO_COOKIE once asked for (0: not yet); never inherited.
    pub cookie: u64,
    /// Every other known option, by (level, name).
    pub flags: BTreeMap<(i32, i32), i32>,
}

impl Options {
    pub fn new(family: Family, ty: SockType) -> Self {
        let tcp = family != Family::Unix && ty == SockType::Stream;
        Options {
            reuse_addr: false,
            reuse_port: false,
            v6only: false,
            rcvbuf: default_buffer(tcp, false),
            sndbuf: default_buffer(tcp, true),
            linger: (0, 0),
            rcvtimeo: (0, 0),
            sndtimeo: (0, 0),
            filter: None,
            filter_locked: false,
            defer_accept: 0,
            bound_dev: 0,
            buf_lock: 0,
            txtime: (0, 0),
            max_pacing: u64::MAX,
            congestion: 0,
            cookie: 0,
            flags: BTreeMap::new(),
        }
    }

    /// A stored option's value (its default until set).
    pub fn flag(&self, level: i32, name: i32) -> i32 {
        self.flags.get(&(level, name)).copied().unwrap_or_else(|| gometal_core::linux::sockoptval::default_value(level, name))
    }

    /// The control messages recvmsg should add (IP_PKTINFO and friends).
    pub fn wants(&self) -> gometal_core::linux::cmsg::Wants {
        use gometal_core::linux::cmsg::*;
        let on = |level, name| self.flag(level, name) != 0;
        Wants {
            ip_pktinfo: on(SOL_IP, IP_PKTINFO),
            ip_ttl: on(SOL_IP, IP_RECVTTL),
            ip_tos: on(SOL_IP, IP_RECVTOS),
            v6_pktinfo: on(SOL_IPV6, IPV6_RECVPKTINFO),
            v6_hoplimit: on(SOL_IPV6, IPV6_RECVHOPLIMIT),
            v6_tclass: on(SOL_IPV6, IPV6_RECVTCLASS),
        }
    }

    /// The TOS (or traffic class) and TTL (or hop limit) this socket's
    /// packets carry: IP_TOS and IP_TTL, IPV6_TCLASS and
    /// IPV6_UNICAST_HOPS.
    pub fn tos_ttl(&self, v6: bool) -> (u8, u8) {
        use gometal_core::linux::cmsg::*;
        if v6 {
            (self.flag(SOL_IPV6, IPV6_TCLASS) as u8, self.flag(SOL_IPV6, 16) as u8)
        } else {
            (self.flag(SOL_IP, IP_TOS) as u8, self.flag(SOL_IP, IP_TTL) as u8)
        }
    }

    /// SO_SNDBUF/SO_RCVBUF (`force`: the FORCE forms, which skip the
    /// cap); both lock the size (SO_BUF_LOCK reads it).
    pub fn set_buffer(&mut self, requested: i32, send: bool, force: bool) {
        let v = if force { gometal_core::linux::sockopt::buffer_size_forced(requested, send) } else { buffer_size(requested, send) };
        if send {
            self.sndbuf = v;
            self.buf_lock |= SNDBUF_LOCK;
        } else {
            self.rcvbuf = v;
            self.buf_lock |= RCVBUF_LOCK;
        }
    }

    /// IP_FREEBIND, IP_TRANSPARENT or their IPv6 twins: bind may name an
    /// address this machine does not have.
    pub fn free_bind(&self) -> bool {
        use gometal_core::linux::sockopt::{IPPROTO_IP, IPPROTO_IPV6};
        [(IPPROTO_IP, 15), (IPPROTO_IP, 19), (IPPROTO_IPV6, 75), (IPPROTO_IPV6, 78)].iter().any(|&(l, n)| self.flag(l, n) != 0)
    }

    /// What an accepted socket takes over from its listener (Linux copies
    /// the socket options; a stored flag such as TCP_NODELAY included).
    pub fn inherit_into(&self, to: &mut Options) {
        to.reuse_addr = self.reuse_addr;
        to.reuse_port = self.reuse_port;
        to.v6only = self.v6only;
        to.rcvbuf = self.rcvbuf;
        to.sndbuf = self.sndbuf;
        to.linger = self.linger;
        to.rcvtimeo = self.rcvtimeo;
        to.sndtimeo = self.sndtimeo;
        to.filter = self.filter.clone();
        to.filter_locked = self.filter_locked;
        // Not TCP_DEFER_ACCEPT: Linux clears the child's accept queue state.
        to.bound_dev = self.bound_dev;
        to.buf_lock = self.buf_lock;
        to.txtime = self.txtime;
        to.max_pacing = self.max_pacing;
        to.congestion = self.congestion;
        to.flags = self.flags.clone();
    }
}
