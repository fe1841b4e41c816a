//! Sending and receiving with addresses and flags: sendto, recvfrom,
//! sendmsg, recvmsg. (read/write/readv/writev on a socket go through io.rs
//! to the same net::data functions.)
//!
//! Ancillary data: a UDP socket's recvmsg adds the control messages it
//! asked for (IP_PKTINFO, IP_RECVTTL, IP_RECVTOS and their IPv6 twins;
//! gometal_core::linux::cmsg), and its sendmsg accepts IP_PKTINFO, IP_TOS,
//! IP_TTL and the IPv6 ones (the packet goes out from the socket's own
//! address with its options' TOS and TTL). SCM_RIGHTS and SCM_CREDENTIALS
//! are not carried: sendmsg with them is EOPNOTSUPP (on UDP they are
//! ignored, as Linux ignores them there).

use super::io::raise_sigpipe;
use super::netlink;
use super::socket::{read_addr, socket_of, write_addr};
use super::userbuf::{import_iovec, IoVec, UserIoBuf, UserIovec, UIO_MAXIOV};
use super::SysResult;
use crate::fs::fd::Fd;
use crate::mm::uaccess::{zeroed, UserPtr, UserSlice, UserSpace, UserValue};
use crate::net::data;
use alloc::vec::Vec;
use gometal_core::linux::sockaddr::{SockAddr, UnixAddr};
use gometal_core::linux::cmsg;
use gometal_core::linux::errno::*;
use gometal_core::linux::msgflags::{RecvFlags, MSG_CTRUNC, MSG_DONTWAIT, MSG_NOSIGNAL, MSG_PEEK, MSG_TRUNC};


/// The most one call moves through the kernel: a stream send or receive
/// may be partial, and no datagram is longer.
const MAX_IO: usize = 256 * 1024;

/// struct msghdr (56 bytes on riscv64).
pub struct MsgHdr {
    name: UserPtr<u8>,
    namelen: u32,
    iov: UserPtr<IoVec>,
    iovlen: usize,
    control: u64,
    controllen: usize,
}

impl UserValue for MsgHdr {
    const SIZE: usize = 56;
    fn decode(b: &[u8]) -> Self {
        MsgHdr {
            name: UserPtr::new(u64::decode(&b[0..8])),
            namelen: u32::decode(&b[8..12]),
            iov: UserPtr::new(u64::decode(&b[16..24])),
            iovlen: u64::decode(&b[24..32]) as usize,
            control: u64::decode(&b[32..40]),
            controllen: u64::decode(&b[40..48]) as usize,
        }
    }
    fn encode(&self, out: &mut [u8]) {
        out.fill(0);
        self.name.addr().encode(&mut out[0..8]);
        self.namelen.encode(&mut out[8..12]);
        self.iov.addr().encode(&mut out[16..24]);
        (self.iovlen as u64).encode(&mut out[24..32]);
        self.control.encode(&mut out[32..40]);
        (self.controllen as u64).encode(&mut out[40..48]);
    }
}

fn nonblocking(file_nonblock: bool, flags: i32) -> bool {
    file_nonblock || flags & MSG_DONTWAIT != 0
}

/// The user bytes `bufs`, gathered (at most MAX_IO).
fn gather(user: &mut UserSpace, bufs: &[UserSlice]) -> Result<Vec<u8>, Errno> {
    let mut data = Vec::new();
    for b in bufs {
        let room = MAX_IO - data.len();
        if room == 0 {
            break;
        }
        data.extend_from_slice(&user.read_bytes(b.prefix(room.min(b.len())))?);
    }
    Ok(data)
}

/// Copies `bytes` out into the user buffers `bufs` (scattered).
fn scatter(user: &mut UserSpace, bufs: &[UserSlice], bytes: &[u8]) -> Result<(), Errno> {
    let mut done = 0;
    for b in bufs {
        if done == bytes.len() {
            break;
        }
        let n = b.len().min(bytes.len() - done);
        user.write_bytes(b.prefix(n), &bytes[done..done + n])?;
        done += n;
    }
    Ok(())
}

/// Sends the user bytes `bufs` (gathered) from socket `fd`.
fn send(user: &mut UserSpace, fd: Fd, bufs: &[UserSlice], flags: i32, dest: Option<(UserPtr<u8>, u32)>) -> SysResult {
    if let Some((_, nl)) = netlink::of(fd) {
        let data = gather(user, bufs)?;
        return netlink::send(user, &nl, &data, dest);
    }
    let (file, sock) = socket_of(fd)?;
    let dest = match dest {
        Some((p, len)) if !p.is_null() => Some(read_addr(user, p, len)?),
        _ => None,
    };
    let data = gather(user, bufs)?;
    let r = data::send(&sock, &data, dest, nonblocking(file.nonblocking(), flags));
    if flags & MSG_NOSIGNAL == 0 {
        if let Err(e) = r {
            raise_sigpipe(e);
        }
    }
    r
}

/// The buffer is checked before the descriptor, as Linux's import_ubuf
/// comes first in sendto and recvfrom.
pub fn sendto(user: &mut UserSpace, fd: Fd, buf: UserIoBuf, flags: i32, addr: UserPtr<u8>, alen: u32) -> SysResult {
    let buf = buf.range()?;
    send(user, fd, &[buf], flags, Some((addr, alen)))
}

/// EBADF or ENOTSOCK unless `fd` is a socket: sendmsg and recvmsg look the
/// socket up before they read the msghdr.
fn must_be_socket(fd: Fd) -> Result<(), Errno> {
    if netlink::of(fd).is_none() {
        socket_of(fd)?;
    }
    Ok(())
}

/// msghdr's byte ranges (import_iovec: every one checked, EFAULT for one
/// that is not the program's); more than UIO_MAXIOV is EMSGSIZE, as Linux
/// answers for a msghdr.
fn msg_iovecs(user: &mut UserSpace, m: &MsgHdr) -> Result<Vec<UserSlice>, Errno> {
    if m.iovlen > UIO_MAXIOV {
        return Err(EMSGSIZE);
    }
    import_iovec(user, UserIovec::new(m.iov, m.iovlen))
}

pub fn sendmsg(user: &mut UserSpace, fd: Fd, msg: UserPtr<MsgHdr>, flags: i32) -> SysResult {
    must_be_socket(fd)?;
    let m = user.read(msg)?;
    let bufs = msg_iovecs(user, &m)?;
    if m.control != 0 && m.controllen > 0 {
        check_control(user, fd, UserPtr::new(m.control), m.controllen)?;
    }
    send(user, fd, &bufs, flags, Some((m.name, m.namelen)))
}

/// Largest control buffer sendmsg reads (Linux: net.core.optmem_max).
const MAX_CONTROL: usize = 20_480;

/// sendmsg's control messages: on a UDP socket those it may send,
/// checked and left to the socket's options (anything else EINVAL, as
/// Linux); on other sockets EOPNOTSUPP (SCM_RIGHTS is not carried); a
/// malformed buffer EINVAL.
fn check_control(user: &mut UserSpace, fd: Fd, control: UserPtr<u8>, len: usize) -> Result<(), Errno> {
    if len > MAX_CONTROL {
        return Err(ENOBUFS);
    }
    let bytes = user.read_bytes(control.slice(len))?;
    let msgs = cmsg::parse(&bytes).ok_or(EINVAL)?;
    let udp = socket_of(fd).is_ok_and(|(_, s)| s.is_inet() && s.ty == crate::net::SockType::Dgram && s.icmp.is_none());
    match (udp, msgs.iter().all(|(level, kind, _)| cmsg::sendable(*level, *kind))) {
        (true, true) => Ok(()),
        (true, false) => Err(EINVAL),
        (false, _) => Err(EOPNOTSUPP),
    }
}

/// The control messages a datagram `got` gives a socket that asked for
/// them, as many as fit in `room` bytes, and whether some did not
/// (MSG_CTRUNC).
fn control_for(fd: Fd, got: &data::Received, room: usize) -> (Vec<u8>, bool) {
    let (Some(info), Ok((_, sock))) = (got.info, socket_of(fd)) else { return (Vec::new(), false) };
    let wants = sock.opts.lock().wants();
    cmsg::fit(cmsg::encode(&info, &wants, sock.family == crate::net::Family::Inet6), room)
}

/// Receives into the user bytes `bufs` (scattered): (bytes, full length,
/// sender).
fn recv(user: &mut UserSpace, fd: Fd, bufs: &[UserSlice], flags: i32) -> Result<data::Received, Errno> {
    let (file, sock) = socket_of(fd)?;
    let want = bufs.iter().fold(0usize, |n, b| n.saturating_add(b.len())).min(MAX_IO);
    let mut bytes = zeroed(want)?;
    let got = data::recv(&sock, &mut bytes, RecvFlags::new(flags, file.nonblocking()))?;
    scatter(user, bufs, &bytes[..got.copied])?;
    Ok(got)
}

/// The sender address to hand back: none for a stream, and none for an
/// unbound AF_UNIX sender (Linux reports a zero length, which Go reads as
/// "no address").
fn sender(got: &data::Received) -> Option<&SockAddr> {
    got.from.as_ref().filter(|a| **a != SockAddr::Unix(UnixAddr::Unnamed))
}

/// A netlink socket's receive (net/netlink.rs): one datagram, from the
/// kernel.
fn recv_netlink(user: &mut UserSpace, fd: Fd, bufs: &[UserSlice], flags: i32) -> Result<Option<netlink::Received>, Errno> {
    let Some((file, nl)) = netlink::of(fd) else { return Ok(None) };
    let want = bufs.iter().fold(0usize, |n, b| n.saturating_add(b.len())).min(MAX_IO);
    let got = netlink::recv(&file, &nl, want, nonblocking(false, flags), flags & MSG_PEEK != 0)?;
    scatter(user, bufs, &got.bytes)?;
    Ok(Some(got))
}

pub fn recvfrom(user: &mut UserSpace, fd: Fd, buf: UserIoBuf, flags: i32, addr: UserPtr<u8>, alen: UserPtr<u32>) -> SysResult {
    let buf = buf.range()?;
    if let Some(got) = recv_netlink(user, fd, &[buf], flags)? {
        netlink::write_address(user, addr, alen, &got.from)?;
        return Ok(if flags & MSG_TRUNC != 0 { got.full } else { got.bytes.len() });
    }
    let got = recv(user, fd, &[buf], flags)?;
    if let Some(from) = sender(&got) {
        write_addr(user, addr, alen, from)?;
    } else if !addr.is_null() {
        user.write(alen, &0u32)?;
    }
    Ok(if flags & MSG_TRUNC != 0 { got.full } else { got.copied })
}

pub fn recvmsg(user: &mut UserSpace, fd: Fd, msg: UserPtr<MsgHdr>, flags: i32) -> SysResult {
    must_be_socket(fd)?;
    let m = user.read(msg)?;
    let bufs = msg_iovecs(user, &m)?;
    let base = msg.addr();
    let namelen_at: UserPtr<u32> = UserPtr::new(base + 8);
    if let Some(got) = recv_netlink(user, fd, &bufs, flags)? {
        netlink::write_address(user, m.name, namelen_at, &got.from)?;
        user.write(UserPtr::<u64>::new(base + 40), &0u64)?;
        let out_flags = if got.full > got.bytes.len() { MSG_TRUNC } else { 0 };
        user.write(UserPtr::<i32>::new(base + 48), &out_flags)?;
        return Ok(if flags & MSG_TRUNC != 0 { got.full } else { got.bytes.len() });
    }
    let got = recv(user, fd, &bufs, flags)?;
    match sender(&got) {
        Some(from) if !m.name.is_null() => write_addr(user, m.name, namelen_at, from)?,
        _ => user.write(namelen_at, &0u32)?,
    }
    let room = if m.control == 0 { 0 } else { m.controllen };
    let (control, cut) = control_for(fd, &got, room);
    if !control.is_empty() {
        user.write_bytes(UserPtr::<u8>::new(m.control).slice(control.len()), &control)?;
    }
    user.write(UserPtr::<u64>::new(base + 40), &(control.len() as u64))?;
    let mut out_flags = if got.full > got.copied { MSG_TRUNC } else { 0 };
    if cut {
        out_flags |= MSG_CTRUNC;
    }
    user.write(UserPtr::<i32>::new(base + 48), &out_flags)?;
    Ok(if flags & MSG_TRUNC != 0 { got.full } else { got.copied })
}
