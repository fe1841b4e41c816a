//! The socket calls on an AF_NETLINK socket (net/netlink.rs): socket,
//! bind, getsockname, getpeername, connect, sendto/sendmsg,
//! recvfrom/recvmsg and the options libraries set. Each socket call
//! (socket.rs, sockmsg.rs, sockopt.rs, sockconn.rs) hands a netlink
//! descriptor here first.

use super::SysResult;
use crate::fs::fd::{self, Fd, OpenFile, O_NONBLOCK};
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::net::netlink::NetlinkSocket;
use crate::process::process;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::linux::errno::*;

pub const AF_NETLINK: i32 = 16;
const NETLINK_ROUTE: i32 = 0;
const SOCK_DGRAM: i32 = 2;
const SOCK_RAW: i32 = 3;
const SOL_SOCKET: i32 = 1;
const SOL_NETLINK: i32 = 270;
const SO_TYPE: i32 = 3;
const SO_SNDBUF: i32 = 7;
const SO_RCVBUF: i32 = 8;
const SO_PROTOCOL: i32 = 38;
const SO_DOMAIN: i32 = 39;
/// sizeof(struct sockaddr_nl).
const ADDR_LEN: usize = 12;

/// The netlink socket open as `fd`, if it is one.
pub fn of(fd: Fd) -> Option<(Arc<OpenFile>, Arc<NetlinkSocket>)> {
    let file = fd::file(fd).ok()?;
    let s = file.downcast_arc::<NetlinkSocket>()?;
    Some((file, s))
}

/// socket(AF_NETLINK, type, protocol): NETLINK_ROUTE only.
pub fn socket(ty: i32, protocol: i32, nonblock: bool, cloexec: bool) -> SysResult {
    if !matches!(ty & 0xf, SOCK_RAW | SOCK_DGRAM) {
        return Err(ESOCKTNOSUPPORT);
    }
    if protocol != NETLINK_ROUTE {
        return Err(EPROTONOSUPPORT);
    }
    let status = 2 | if nonblock { O_NONBLOCK } else { 0 };
    process().fs.files.lock().install(OpenFile::new(NetlinkSocket::new(process().pid), status), cloexec, 0)
}

/// struct sockaddr_nl of `port` and `groups`.
fn address(port: u32, groups: u32) -> [u8; ADDR_LEN] {
    let mut a = [0u8; ADDR_LEN];
    a[..2].copy_from_slice(&(AF_NETLINK as u16).to_le_bytes());
    a[4..8].copy_from_slice(&port.to_le_bytes());
    a[8..12].copy_from_slice(&groups.to_le_bytes());
    a
}

/// (port, groups) of the sockaddr_nl a program passed.
fn read_address(user: &mut UserSpace, addr: UserPtr<u8>, len: u32) -> Result<(u32, u32), Errno> {
    if (len as usize) < ADDR_LEN {
        return Err(EINVAL);
    }
    let b = user.read_bytes(addr.slice(ADDR_LEN))?;
    if u16::from_le_bytes([b[0], b[1]]) != AF_NETLINK as u16 {
        return Err(EINVAL);
    }
    let word = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    Ok((word(4), word(8)))
}

/// Writes `a` the way every *name call does (as much as fits, the full
/// length back).
pub fn write_address(user: &mut UserSpace, out: UserPtr<u8>, len: UserPtr<u32>, a: &[u8; ADDR_LEN]) -> Result<(), Errno> {
    if out.is_null() {
        return Ok(());
    }
    let room = user.read(len)? as i32;
    if room < 0 {
        return Err(EINVAL);
    }
    let n = ADDR_LEN.min(room as usize);
    user.write_bytes(out.slice(n), &a[..n])?;
    user.write(len, &(ADDR_LEN as u32))
}

pub fn bind(user: &mut UserSpace, s: &NetlinkSocket, addr: UserPtr<u8>, len: u32) -> SysResult {
    let (port, groups) = read_address(user, addr, len)?;
    s.bind(port, groups)?;
    Ok(0)
}

pub fn getsockname(user: &mut UserSpace, s: &NetlinkSocket, addr: UserPtr<u8>, len: UserPtr<u32>) -> SysResult {
    write_address(user, addr, len, &address(s.port(), s.groups()))?;
    Ok(0)
}

/// The peer is always the kernel (port 0).
pub fn getpeername(user: &mut UserSpace, addr: UserPtr<u8>, len: UserPtr<u32>) -> SysResult {
    write_address(user, addr, len, &address(0, 0))?;
    Ok(0)
}

/// connect names the kernel as the peer: nothing to do but check it.
pub fn connect(user: &mut UserSpace, s: &NetlinkSocket, addr: UserPtr<u8>, len: u32) -> SysResult {
    let (port, _) = read_address(user, addr, len)?;
    if port != 0 {
        return Err(ECONNREFUSED); // only the kernel answers
    }
    s.port();
    Ok(0)
}

/// A send of `data`, to the kernel (a destination other than port 0
/// would be another program: there is none).
pub fn send(user: &mut UserSpace, s: &NetlinkSocket, data: &[u8], dest: Option<(UserPtr<u8>, u32)>) -> SysResult {
    if let Some((p, len)) = dest.filter(|(p, _)| !p.is_null()) {
        if read_address(user, p, len)?.0 != 0 {
            return Err(ECONNREFUSED);
        }
    }
    s.send(data)
}

/// A received datagram: the bytes, its full length, and the sender's
/// address (the kernel's) to report.
pub struct Received {
    pub bytes: Vec<u8>,
    pub full: usize,
    pub from: [u8; ADDR_LEN],
}

pub fn recv(file: &OpenFile, s: &NetlinkSocket, want: usize, nonblock: bool, peek: bool) -> Result<Received, Errno> {
    let mut bytes = crate::mm::uaccess::zeroed(want)?;
    let (n, full) = s.recv(&mut bytes, nonblock || file.nonblocking(), peek)?;
    bytes.truncate(n);
    Ok(Received { bytes, full, from: address(0, 0) })
}

/// setsockopt: buffer sizes, and the SOL_NETLINK options (group
/// membership, extended acks, strict checking), are taken and ignored:
/// answers are made whole at the send and no group ever hears anything.
pub fn setsockopt(level: i32) -> SysResult {
    match level {
        SOL_SOCKET | SOL_NETLINK => Ok(0),
        _ => Err(ENOPROTOOPT),
    }
}

/// getsockopt's int value.
pub fn getsockopt(level: i32, name: i32) -> Result<i32, Errno> {
    match (level, name) {
        (SOL_SOCKET, SO_TYPE) => Ok(SOCK_RAW),
        (SOL_SOCKET, SO_DOMAIN) => Ok(AF_NETLINK),
        (SOL_SOCKET, SO_PROTOCOL) => Ok(NETLINK_ROUTE),
        (SOL_SOCKET, SO_RCVBUF | SO_SNDBUF) => Ok(212_992),
        (SOL_NETLINK, _) => Ok(0),
        _ => Err(ENOPROTOOPT),
    }
}
