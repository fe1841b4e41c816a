//! The socket calls that make, name and connect sockets: socket,
//! socketpair, bind, listen, accept, accept4, connect, getsockname,
//! getpeername, shutdown. Data moves in sockmsg.rs, options in sockopt.rs;
//! the sockets themselves are net/.

use super::args::OpenFlags;
use super::{netlink, SysResult};
use crate::fs::fd::{self, Fd, OpenFile, O_NONBLOCK};
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::net::socket::{Icmp, State};
use crate::net::stream::{self, Listener};
use crate::net::{inet, unixns, Family, SockType, Socket};
use crate::process::process;
use alloc::sync::Arc;
use gometal_core::linux::errno::*;
use gometal_core::linux::sockaddr::{self, InetAddr, SockAddr, UnixAddr, AF_INET, AF_INET6, AF_UNIX};
use gometal_core::linux::sockopt;

const SOCK_STREAM: i32 = 1;
const SOCK_DGRAM: i32 = 2;
const SOCK_RAW: i32 = 3;
const IPPROTO_ICMP: i32 = 1;
const IPPROTO_ICMPV6: i32 = 58;
const SOCK_SEQPACKET: i32 = 5;
const SOCK_NONBLOCK: i32 = OpenFlags::NONBLOCK.bits() as i32;
const SOCK_CLOEXEC: i32 = OpenFlags::CLOEXEC.bits() as i32;
const O_RDWR: u32 = 2;
/// sizeof(struct sockaddr_storage): no address a program passes is longer.
const MAX_ADDR: u32 = 128;

/// The socket open as `fd`: EBADF for no file, ENOTSOCK for another kind.
pub fn socket_of(fd: Fd) -> Result<(Arc<OpenFile>, Arc<Socket>), Errno> {
    let file = fd::file(fd)?;
    let s = file.downcast_arc::<Socket>().ok_or(ENOTSOCK)?;
    Ok((file, s))
}

/// The address a program passed (pointer and length).
pub fn read_addr(user: &mut UserSpace, addr: UserPtr<u8>, len: u32) -> Result<SockAddr, Errno> {
    if len > MAX_ADDR {
        return Err(EINVAL);
    }
    sockaddr::decode(&user.read_bytes(addr.slice(len as usize))?)
}

/// Hands `addr` back the Linux way: as much as fits in *len bytes at
/// `out`, and the full length in *len. A null `out` asks for nothing.
pub fn write_addr(user: &mut UserSpace, out: UserPtr<u8>, len: UserPtr<u32>, addr: &SockAddr) -> Result<(), Errno> {
    if out.is_null() {
        return Ok(());
    }
    let room = user.read(len)? as i32;
    if room < 0 {
        return Err(EINVAL);
    }
    let bytes = addr.encode();
    let n = bytes.len().min(room as usize);
    user.write_bytes(out.slice(n), &bytes[..n])?;
    user.write(len, &(bytes.len() as u32))
}

fn install(sock: Arc<Socket>, flags: i32) -> SysResult {
    let nonblock = if flags & SOCK_NONBLOCK != 0 { O_NONBLOCK } else { 0 };
    let file = OpenFile::new(sock, O_RDWR | nonblock);
    process().fs.files.lock().install(file, flags & SOCK_CLOEXEC != 0, 0)
}

/// The socket socket(domain, type, protocol) asks for.
fn make(domain: i32, ty: i32, protocol: i32) -> Result<Arc<Socket>, Errno> {
    let family = match domain as u16 {
        AF_UNIX => Family::Unix,
        AF_INET => Family::Inet4,
        AF_INET6 => Family::Inet6,
        _ => return Err(EAFNOSUPPORT),
    };
    if ty & !(0xf | SOCK_NONBLOCK | SOCK_CLOEXEC) != 0 {
        return Err(EINVAL);
    }
    // ICMP: ping sockets and raw ICMP sockets (net/ping.rs); programs run
    // as root, which may open both.
    let icmp = matches!((family, protocol), (Family::Inet4, IPPROTO_ICMP) | (Family::Inet6, IPPROTO_ICMPV6));
    match (ty & 0xf, icmp) {
        (SOCK_DGRAM, true) => return Ok(Socket::with_icmp(family, SockType::Dgram, Some(Icmp::Ping))),
        (SOCK_RAW, true) => {
            let s = Socket::with_icmp(family, SockType::Dgram, Some(Icmp::Raw));
            crate::net::ping::add_raw(&s)?;
            return Ok(s);
        }
        (SOCK_RAW, false) if family == Family::Unix => return Err(ESOCKTNOSUPPORT),
        (SOCK_RAW, false) => return Err(EPROTONOSUPPORT),
        _ => {}
    }
    let kind = match ty & 0xf {
        SOCK_STREAM => SockType::Stream,
        SOCK_DGRAM => SockType::Dgram,
        SOCK_SEQPACKET if family == Family::Unix => SockType::SeqPacket,
        _ => return Err(ESOCKTNOSUPPORT),
    };
    let ok = match (family, kind) {
        (Family::Unix, _) => protocol == 0 || protocol == AF_UNIX as i32,
        (_, SockType::Stream | SockType::SeqPacket) => protocol == 0 || protocol == sockopt::IPPROTO_TCP,
        (_, SockType::Dgram) => protocol == 0 || protocol == sockopt::IPPROTO_UDP,
    };
    if !ok {
        return Err(EPROTONOSUPPORT);
    }
    // Sockets live on the kernel heap: the reserve is for the kernel itself
    // (Linux too answers socket(2) with ENOBUFS when memory is short).
    if !crate::mm::heap::has_room() {
        return Err(ENOBUFS);
    }
    Ok(Socket::new(family, kind))
}

pub fn socket(_: &mut UserSpace, domain: i32, ty: i32, protocol: i32) -> SysResult {
    if domain == netlink::AF_NETLINK {
        if ty & !(0xf | SOCK_NONBLOCK | SOCK_CLOEXEC) != 0 {
            return Err(EINVAL);
        }
        return netlink::socket(ty, protocol, ty & SOCK_NONBLOCK != 0, ty & SOCK_CLOEXEC != 0);
    }
    install(make(domain, ty, protocol)?, ty)
}

pub fn socketpair(user: &mut UserSpace, domain: i32, ty: i32, protocol: i32, sv: UserPtr<[i32; 2]>) -> SysResult {
    let a = make(domain, ty, protocol)?;
    if a.family != Family::Unix {
        return Err(EOPNOTSUPP);
    }
    let b = Socket::new(a.family, a.ty);
    for s in [&a, &b] {
        *s.local.lock() = Some(SockAddr::Unix(UnixAddr::Unnamed));
        *s.peer.lock() = Some(SockAddr::Unix(UnixAddr::Unnamed));
    }
    if a.ty.connected() {
        let (ea, eb) = stream::Endpoint::pair(false, a.ty == SockType::SeqPacket)?;
        *a.state.lock() = State::Connected(Arc::new(ea));
        *b.state.lock() = State::Connected(Arc::new(eb));
    } else {
        *a.dgram_peer.lock() = Some(Arc::downgrade(&b));
        *b.dgram_peer.lock() = Some(Arc::downgrade(&a));
    }
    let fa = install(a, ty)?;
    let fb = match install(b, ty) {
        Ok(f) => f,
        Err(e) => {
            let _ = process().fs.files.lock().close(fa);
            return Err(e);
        }
    };
    if let Err(e) = user.write(sv, &[fa as i32, fb as i32]) {
        let mut files = process().fs.files.lock();
        let _ = files.close(fa);
        let _ = files.close(fb);
        return Err(e);
    }
    Ok(0)
}

pub fn bind(user: &mut UserSpace, fd: Fd, addr: UserPtr<u8>, len: u32) -> SysResult {
    if let Some((_, nl)) = netlink::of(fd) {
        return netlink::bind(user, &nl, addr, len);
    }
    let (_, sock) = socket_of(fd)?;
    match (read_addr(user, addr, len)?, sock.family) {
        (SockAddr::Unix(name), Family::Unix) => unixns::bind(&sock, name)?,
        // bind(AF_UNSPEC, INADDR_ANY) on an IPv4 socket means 0.0.0.0.
        (SockAddr::Unspec, Family::Inet4) if len >= 16 => {
            inet::bind(&sock, InetAddr::v4([0; 4], u16::from_be_bytes([0, 0])))?;
        }
        (SockAddr::Inet(a), Family::Inet4 | Family::Inet6) if sock.icmp == Some(Icmp::Raw) => crate::net::ping::bind_raw(&sock, a)?,
        (SockAddr::Inet(a), Family::Inet4 | Family::Inet6) => {
            inet::bind(&sock, a)?;
        }
        (_, Family::Unix) => return Err(EINVAL),
        _ => return Err(EAFNOSUPPORT),
    }
    Ok(0)
}

pub fn listen(_: &mut UserSpace, fd: Fd, backlog: i32) -> SysResult {
    let (_, sock) = socket_of(fd)?;
    if !sock.ty.connected() {
        return Err(EOPNOTSUPP);
    }
    if sock.bound.lock().is_none() {
        // Linux binds an unbound socket before it listens.
        match sock.family {
            Family::Unix => unixns::bind(&sock, UnixAddr::Unnamed)?,
            f => {
                let any = if f == Family::Inet6 { InetAddr::v6([0; 16], 0) } else { InetAddr::v4([0; 4], 0) };
                inet::bind(&sock, any)?;
            }
        }
    }
    // Loopback TCP's queue is not limited by the backlog (a real TCP stack
    // keeps retrying a refused SYN; this one cannot): see stream::connect_to.
    // Connections through the NIC wait beyond it (stream::Listener).
    let asked = sockopt::backlog(backlog);
    let limit = if sock.is_tcp() { sockopt::SOMAXCONN as usize } else { asked };
    let mut state = sock.state.lock();
    match &*state {
        State::Connected(_) => return Err(EINVAL),
        State::Listening(_) => return Ok(0),
        State::Idle => *state = State::Listening(Arc::new(Listener::new(limit, asked))),
    }
    sock.listening.store(true, core::sync::atomic::Ordering::Release);
    drop(state);
    sock.changed();
    // The address is copied out first: the NIC lock comes before a
    // socket's (sync/lockorder.rs), and an `if let` would hold it.
    let local = sock.local.lock().clone();
    if let Some(SockAddr::Inet(a)) = local.filter(|_| sock.is_tcp()) {
        crate::net::nic::on_listen(a.port); // connections from the network too
    }
    Ok(0)
}

pub fn accept(user: &mut UserSpace, fd: Fd, addr: UserPtr<u8>, len: UserPtr<u32>) -> SysResult {
    accept4(user, fd, addr, len, 0)
}

pub fn accept4(user: &mut UserSpace, fd: Fd, addr: UserPtr<u8>, len: UserPtr<u32>, flags: i32) -> SysResult {
    if flags & !(SOCK_NONBLOCK | SOCK_CLOEXEC) != 0 {
        return Err(EINVAL);
    }
    let (file, sock) = socket_of(fd)?;
    if !sock.ty.connected() {
        return Err(EOPNOTSUPP);
    }
    let conn = stream::accept(&sock, file.nonblocking())?;
    let peer = conn.peer.lock().clone().unwrap_or(SockAddr::Unix(UnixAddr::Unnamed));
    let newfd = install(conn, flags)?;
    write_addr(user, addr, len, &peer)?;
    Ok(newfd)
}

pub fn getsockname(user: &mut UserSpace, fd: Fd, addr: UserPtr<u8>, len: UserPtr<u32>) -> SysResult {
    if let Some((_, nl)) = netlink::of(fd) {
        return netlink::getsockname(user, &nl, addr, len);
    }
    let (_, sock) = socket_of(fd)?;
    if addr.is_null() {
        return Err(EFAULT);
    }
    write_addr(user, addr, len, &sock.local_addr())?;
    Ok(0)
}

pub fn getpeername(user: &mut UserSpace, fd: Fd, addr: UserPtr<u8>, len: UserPtr<u32>) -> SysResult {
    if netlink::of(fd).is_some() {
        return netlink::getpeername(user, addr, len);
    }
    let (_, sock) = socket_of(fd)?;
    if sock.ty.connected() && !matches!(*sock.state.lock(), State::Connected(_)) {
        return Err(ENOTCONN);
    }
    let peer = sock.peer.lock().clone().ok_or(ENOTCONN)?;
    if addr.is_null() {
        return Err(EFAULT);
    }
    write_addr(user, addr, len, &peer)?;
    Ok(0)
}

pub fn shutdown(_: &mut UserSpace, fd: Fd, how: i32) -> SysResult {
    let (_, sock) = socket_of(fd)?;
    let (read, write) = match how {
        0 => (true, false),
        1 => (false, true),
        2 => (true, true),
        _ => return Err(EINVAL),
    };
    match &*sock.state.lock() {
        State::Connected(e) => e.shutdown(read, write),
        _ if sock.ty == SockType::Dgram && sock.peer.lock().is_some() => {}
        _ => return Err(ENOTCONN),
    }
    sock.changed();
    Ok(0)
}

pub use super::sockconn::connect;
