//! setsockopt and getsockopt: the option table (kernel/core's sockopt)
//! decides which exist and their layout; the socket keeps the values.

use super::socket::socket_of;
use super::SysResult;
use crate::fs::fd::Fd;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::net::socket::{Icmp, State};
use crate::net::{Family, SockType, Socket};
use alloc::vec::Vec;
use gometal_core::errno::*;
use gometal_core::sockopt::{default_value, is_bool, timeout_ns, Layout, SockOpt, IPPROTO_IP, IPPROTO_IPV6, IPPROTO_TCP};

/// Does `level` apply to `sock` (TCP options to TCP sockets, IPv6 ones to
/// IPv6 sockets...)? Linux answers ENOPROTOOPT otherwise.
fn level_fits(sock: &Socket, opt: SockOpt) -> bool {
    match opt {
        SockOpt::V6Only => sock.family == Family::Inet6,
        SockOpt::Flag(IPPROTO_TCP, _) => sock.is_tcp(),
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
        Layout::Int => 4,
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
    let need = size(opt.layout());
    if (len as usize) < need {
        return Err(EINVAL);
    }
    let b = user.read_bytes(val.slice(need))?;
    let int = |at: usize| i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
    let long = |at: usize| i64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
    // Looked at before the options lock: bind takes the two the other way.
    let bound = sock.bound.lock().is_some();
    let mut o = sock.opts.lock();
    match opt {
        SockOpt::RcvBuf => o.set_buffer(int(0), false),
        SockOpt::SndBuf => o.set_buffer(int(0), true),
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
        SockOpt::Flag(l, n) => {
            let v = if is_bool(l, n) { (int(0) != 0) as i32 } else { int(0) };
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

/// The option's current value, laid out as getsockopt returns it.
fn value(sock: &Socket, opt: SockOpt) -> Vec<u8> {
    let int = |v: i32| v.to_le_bytes().to_vec();
    let o = sock.opts.lock();
    match opt {
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
        SockOpt::Protocol => int(match (sock.is_inet(), sock.ty) {
            _ if sock.icmp.is_some() && sock.family == Family::Inet6 => 58, // IPPROTO_ICMPV6
            _ if sock.icmp.is_some() => 1, // IPPROTO_ICMP
            (false, _) => 0,
            (true, SockType::Stream | SockType::SeqPacket) => IPPROTO_TCP,
            (true, SockType::Dgram) => gometal_core::sockopt::IPPROTO_UDP,
        }),
        SockOpt::RcvBuf => int(o.rcvbuf),
        SockOpt::SndBuf => int(o.sndbuf),
        SockOpt::ReuseAddr => int(o.reuse_addr as i32),
        SockOpt::ReusePort => int(o.reuse_port as i32),
        SockOpt::V6Only => int(o.v6only as i32),
        SockOpt::Linger => [o.linger.0.to_le_bytes(), o.linger.1.to_le_bytes()].concat(),
        SockOpt::RcvTimeo => [o.rcvtimeo.0.to_le_bytes(), o.rcvtimeo.1.to_le_bytes()].concat(),
        SockOpt::SndTimeo => [o.sndtimeo.0.to_le_bytes(), o.sndtimeo.1.to_le_bytes()].concat(),
        SockOpt::Flag(l, n) => int(o.flags.get(&(l, n)).copied().unwrap_or_else(|| default_value(l, n))),
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
    let room = user.read(len)? as i32;
    if room < 0 {
        return Err(EINVAL);
    }
    let bytes = value(&sock, opt);
    let n = bytes.len().min(room as usize);
    user.write_bytes(val.slice(n), &bytes[..n])?;
    user.write(len, &(n as u32))?;
    Ok(0)
}
