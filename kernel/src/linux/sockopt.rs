//! setsockopt and getsockopt: the option table (kernel/core's sockopt and
//! sockoptval) decides which exist and their layout; the socket keeps the
//! values (net/options.rs). The options whose value is not an int, a
//! linger or a timeval (BPF filters, device names, peer credentials...)
//! are sockoptbytes.rs's. docs/syscalls.md, "Socket options", lists
//! every option and what it does here.

use super::socket::socket_of;
use super::SysResult;
use crate::fs::fd::Fd;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::net::socket::{Icmp, State};
use crate::net::{Family, SockType, Socket};
use alloc::vec::Vec;
use gometal_core::linux::errno::*;
use gometal_core::linux::sockopt::{timeout_ns, Layout, SockOpt, IPPROTO_IP, IPPROTO_IPV6, IPPROTO_TCP, IPPROTO_UDP};
use gometal_core::linux::sockoptval::stored_value;
use gometal_core::linux::sockoptval::{defer_retransmits, defer_seconds, IP_PROTOCOL};

/// Does `level` apply to `sock` (TCP options to TCP sockets, IPv6 ones to
/// IPv6 sockets...)? Linux answers ENOPROTOOPT otherwise.
pub(super) fn level_fits(sock: &Socket, opt: SockOpt) -> bool {
    match opt {
        SockOpt::V6Only => sock.family == Family::Inet6,
        SockOpt::DeferAccept | SockOpt::Congestion => sock.is_tcp(),
        SockOpt::Mtu => sock.is_inet(),
        SockOpt::Flag(IPPROTO_TCP, _) => sock.is_tcp(),
        SockOpt::Flag(IPPROTO_UDP, _) => sock.is_inet() && sock.ty == SockType::Dgram && sock.icmp.is_none(),
        SockOpt::Flag(IPPROTO_IP, _) => sock.is_inet(),
        SockOpt::Flag(IPPROTO_IPV6, _) => sock.family == Family::Inet6,
        _ => true,
    }
}

fn lookup(sock: &Socket, level: i32, name: i32) -> Result<SockOpt, Errno> {
    SockOpt::lookup(level, name).filter(|&o| level_fits(sock, o)).ok_or(ENOPROTOOPT)
}

fn size(layout: Layout) -> usize {
    match layout {
        Layout::Int | Layout::Bytes => 4,
        Layout::Linger => 8,
        Layout::Timeval => 16,
    }
}

pub fn setsockopt(user: &mut UserSpace, fd: Fd, level: i32, name: i32, val: UserPtr<u8>, len: u32) -> SysResult {
    if super::netlink::of(fd).is_some() {
        return super::netlink::setsockopt(level);
    }
    let (_, sock) = socket_of(fd)?;
    let opt = lookup(&sock, level, name)?;
    if opt.read_only() {
        return Err(ENOPROTOOPT);
    }
    if opt.layout() == Layout::Bytes {
        return super::sockoptbytes::set(user, &sock, opt, val, len).map(|()| 0);
    }
    let need = size(opt.layout());
    if (len as usize) < need {
        return Err(EINVAL);
    }
    let b = user.read_bytes(val.slice(need))?;
    let int = |at: usize| i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
    let long = |at: usize| i64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
    match opt {
        SockOpt::DetachFilter | SockOpt::LockFilter => return super::sockoptbytes::filter_control(&sock, opt, int(0)).map(|()| 0),
        SockOpt::AttachBpf => return Err(attach_bpf_errno(int(0))),
        SockOpt::BindToIfindex => return super::sockoptbytes::bind_to_index(&sock, int(0)).map(|()| 0),
        _ => {}
    }
    // Looked at before the options lock: bind takes the two the other way.
    let bound = sock.bound.lock().is_some();
    let mut o = sock.opts.lock();
    match opt {
        SockOpt::RcvBuf | SockOpt::RcvBufForce => o.set_buffer(int(0), false, opt == SockOpt::RcvBufForce),
        SockOpt::SndBuf | SockOpt::SndBufForce => o.set_buffer(int(0), true, opt == SockOpt::SndBufForce),
        SockOpt::BufLock if int(0) & !3 != 0 => return Err(EINVAL),
        SockOpt::BufLock => o.buf_lock = int(0),
        SockOpt::ReuseAddr => o.reuse_addr = int(0) != 0,
        SockOpt::ReusePort => o.reuse_port = int(0) != 0,
        SockOpt::V6Only if bound => return Err(EINVAL),
        SockOpt::V6Only => o.v6only = int(0) != 0,
        SockOpt::Linger => o.linger = (int(0), int(4)),
        SockOpt::RcvTimeo | SockOpt::SndTimeo => {
            let tv = (long(0), long(8));
            timeout_ns(tv.0, tv.1)?; // EDOM for a bad timeval, as Linux checks
            if opt == SockOpt::RcvTimeo {
                o.rcvtimeo = tv;
            } else {
                o.sndtimeo = tv;
            }
        }
        SockOpt::DeferAccept => o.defer_accept = defer_retransmits(int(0)),
        SockOpt::SndLowat => return Err(ENOPROTOOPT),
        SockOpt::Unsupported | SockOpt::PeekOff => return Err(EOPNOTSUPP),
        SockOpt::DetachReuseportBpf => return Err(if o.reuse_port { ENOENT } else { EINVAL }),
        SockOpt::CnxAdvice => {}
        SockOpt::Flag(l, n) => {
            let v = stored_value(l, n, int(0))?;
            o.flags.insert((l, n), v);
            if crate::net::nic::keepalive::is_keepalive_option(l, n) {
                drop(o); // changed() looks at the socket's state
                crate::net::nic::keepalive::changed(&sock); // the NIC applies it at its next poll
            }
        }
        _ => return Err(ENOPROTOOPT),
    }
    Ok(0)
}

/// SO_ATTACH_BPF and SO_ATTACH_REUSEPORT_EBPF name an eBPF program by its
/// descriptor: none is ever one (no bpf(2)), so EBADF for a descriptor
/// that is not open and EINVAL for any other, as Linux's bpf_prog_get.
fn attach_bpf_errno(fd: i32) -> Errno {
    match crate::fs::fd::file(Fd(fd)) {
        Ok(_) if fd >= 0 => EINVAL,
        _ => EBADF,
    }
}

/// The option's current value, laid out as getsockopt returns it.
fn value(sock: &Socket, opt: SockOpt) -> Result<Vec<u8>, Errno> {
    let int = |v: i32| v.to_le_bytes().to_vec();
    if let Some(v) = super::sockoptbytes::value(sock, opt)? {
        return Ok(v);
    }
    let o = sock.opts.lock();
    Ok(match opt {
        SockOpt::Type => int(match sock.ty {
            _ if sock.icmp == Some(Icmp::Raw) => 3,
            SockType::Stream => 1,
            SockType::Dgram => 2,
            SockType::SeqPacket => 5,
        }),
        SockOpt::Error => int(sock.take_error().map_or(0, |e| e.value() as i32)),
        SockOpt::AcceptConn => int(matches!(*sock.state.lock(), State::Listening(_)) as i32),
        SockOpt::Domain => int(match sock.family {
            Family::Unix => 1,
            Family::Inet4 => 2,
            Family::Inet6 => 10,
        }),
        SockOpt::Protocol | SockOpt::Flag(IPPROTO_IP, IP_PROTOCOL) => int(protocol(sock)),
        SockOpt::RcvBuf => int(o.rcvbuf),
        SockOpt::SndBuf => int(o.sndbuf),
        SockOpt::BufLock => int(o.buf_lock),
        SockOpt::ReuseAddr => int(o.reuse_addr as i32),
        SockOpt::ReusePort => int(o.reuse_port as i32),
        SockOpt::V6Only => int(o.v6only as i32),
        SockOpt::Linger => [o.linger.0.to_le_bytes(), o.linger.1.to_le_bytes()].concat(),
        SockOpt::RcvTimeo => [o.rcvtimeo.0.to_le_bytes(), o.rcvtimeo.1.to_le_bytes()].concat(),
        SockOpt::SndTimeo => [o.sndtimeo.0.to_le_bytes(), o.sndtimeo.1.to_le_bytes()].concat(),
        SockOpt::SndLowat => int(1),
        SockOpt::LockFilter => int(o.filter_locked as i32),
        SockOpt::BindToIfindex => int(o.bound_dev),
        SockOpt::DeferAccept => int(defer_seconds(o.defer_accept)),
        SockOpt::Unsupported => int(0),
        SockOpt::PeekOff => return Err(EOPNOTSUPP),
        SockOpt::Flag(l, n) => int(o.flag(l, n)),
        _ => return Err(ENOPROTOOPT),
    })
}

/// SO_PROTOCOL and IP_PROTOCOL.
fn protocol(sock: &Socket) -> i32 {
    match (sock.is_inet(), sock.ty) {
        _ if sock.icmp.is_some() && sock.family == Family::Inet6 => 58, // IPPROTO_ICMPV6
        _ if sock.icmp.is_some() => 1,                                  // IPPROTO_ICMP
        (false, _) => 0,
        (true, SockType::Stream | SockType::SeqPacket) => IPPROTO_TCP,
        (true, SockType::Dgram) => IPPROTO_UDP,
    }
}

pub fn getsockopt(user: &mut UserSpace, fd: Fd, level: i32, name: i32, val: UserPtr<u8>, len: UserPtr<u32>) -> SysResult {
    if super::netlink::of(fd).is_some() {
        let v = super::netlink::getsockopt(level, name)?.to_le_bytes();
        let n = (user.read(len)? as usize).min(v.len());
        user.write_bytes(val.slice(n), &v[..n])?;
        user.write(len, &(n as u32))?;
        return Ok(0);
    }
    let (_, sock) = socket_of(fd)?;
    let opt = lookup(&sock, level, name)?;
    if opt.write_only() {
        return Err(ENOPROTOOPT);
    }
    let room = user.read(len)? as i32;
    if room < 0 {
        return Err(EINVAL);
    }
    if let Some(n) = super::sockoptbytes::get_sized(user, &sock, opt, val, room as usize)? {
        user.write(len, &(n as u32))?;
        return Ok(0);
    }
    let bytes = value(&sock, opt)?;
    let n = bytes.len().min(room as usize);
    user.write_bytes(val.slice(n), &bytes[..n])?;
    user.write(len, &(n as u32))?;
    Ok(0)
}
