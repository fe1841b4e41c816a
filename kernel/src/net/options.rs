//! The option values a socket keeps (setsockopt/getsockopt): the ones that
//! change behaviour (SO_REUSEADDR, SO_REUSEPORT, IPV6_V6ONLY, the buffer
//! sizes) as fields, the others as stored ints reported back unchanged.

use super::socket::{Family, SockType};
use alloc::collections::BTreeMap;
use gometal_core::sockopt::{buffer_size, default_buffer};

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
            flags: BTreeMap::new(),
        }
    }

    fn flag(&self, level: i32, name: i32) -> i32 {
        self.flags.get(&(level, name)).copied().unwrap_or_else(|| gometal_core::sockopt::default_value(level, name))
    }

    /// The control messages recvmsg should add (IP_PKTINFO and friends).
    pub fn wants(&self) -> gometal_core::cmsg::Wants {
        use gometal_core::cmsg::*;
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
        use gometal_core::cmsg::*;
        if v6 {
            (self.flag(SOL_IPV6, IPV6_TCLASS) as u8, self.flag(SOL_IPV6, 16) as u8)
        } else {
            (self.flag(SOL_IP, IP_TOS) as u8, self.flag(SOL_IP, IP_TTL) as u8)
        }
    }

    pub fn set_buffer(&mut self, requested: i32, send: bool) {
        let v = buffer_size(requested, send);
        if send {
            self.sndbuf = v;
        } else {
            self.rcvbuf = v;
        }
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
        to.flags = self.flags.clone();
    }
}
