//! The socket options whose value is not a plain int: classic BPF filters
//! (SO_ATTACH_FILTER / SO_GET_FILTER, SO_DETACH_FILTER, SO_LOCK_FILTER),
//! device binding (SO_BINDTODEVICE, SO_BINDTOIFINDEX), SO_TXTIME,
//! SO_MAX_PACING_RATE, TCP_CONGESTION, and the read-only facts with
//! Linux's own length rules (SO_PEERCRED, SO_PEERNAME, SO_PEERGROUPS,
//! SO_COOKIE, SO_NETNS_COOKIE, SO_MEMINFO, IP_MTU/IPV6_MTU). Each follows
//! net/core/sock.c's sk_setsockopt/sk_getsockopt or net/core/filter.c.

use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::net::socket::State;
use crate::net::{Family, Socket};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::net::cbpf::{Filter, Insn, INSN_BYTES, MAX_INSNS};
use gometal_core::linux::errno::*;
use gometal_core::linux::sockaddr::SockAddr;
use gometal_core::linux::sockopt::SockOpt;
use gometal_core::linux::sockoptval::CONGESTION;

/// sizeof(struct sock_fprog) on a 64-bit machine: a u16 count, padding,
/// the instructions' address.
const FPROG_BYTES: usize = 16;
/// IFNAMSIZ and TCP_CA_NAME_MAX.
const NAME_MAX: usize = 16;

/// setsockopt of an option laid out as `Layout::Bytes`.
pub fn set(user: &mut UserSpace, sock: &Socket, opt: SockOpt, val: UserPtr<u8>, len: u32) -> Result<(), Errno> {
    let len = len as usize;
    match opt {
        SockOpt::BindToDevice => return bind_to_device(user, sock, val, len),
        SockOpt::Congestion => return congestion(user, sock, val, len),
        _ => {}
    }
    // sk_setsockopt reads an int before it looks at the option.
    if len < 4 {
        return Err(EINVAL);
    }
    let first = user.read_bytes(val.slice(4))?;
    match opt {
        SockOpt::Filter => attach_filter(user, sock, val, len),
        SockOpt::TxTime => {
            if len != 8 {
                return Err(EINVAL);
            }
            let b = user.read_bytes(val.slice(8))?;
            let clock = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            let flags = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
            if flags & !3 != 0 {
                return Err(EINVAL); // SOF_TXTIME_DEADLINE_MODE | SOF_TXTIME_REPORT_ERRORS
            }
            sock.opts.lock().txtime = (clock, flags);
            Ok(())
        }
        SockOpt::MaxPacingRate => {
            let v = u32::from_le_bytes([first[0], first[1], first[2], first[3]]);
            let mut rate = if v == u32::MAX { u64::MAX } else { u64::from(v) };
            if len >= 8 {
                let b = user.read_bytes(val.slice(8))?;
                rate = u64::from_le_bytes(b[..8].try_into().unwrap_or([0xff; 8]));
            }
            sock.opts.lock().max_pacing = rate;
            Ok(())
        }
        _ => Err(ENOPROTOOPT),
    }
}

/// SO_ATTACH_FILTER: Linux's order of checks (copy_bpf_fprog_from_user,
/// then __get_filter): the struct's size, a locked filter, the count and
/// pointer, the instructions' memory, then the program itself.
fn attach_filter(user: &mut UserSpace, sock: &Socket, val: UserPtr<u8>, len: usize) -> Result<(), Errno> {
    if len != FPROG_BYTES {
        return Err(EINVAL);
    }
    let f = user.read_bytes(val.slice(FPROG_BYTES))?;
    let count = u16::from_le_bytes([f[0], f[1]]) as usize;
    let addr = u64::from_le_bytes(f[8..16].try_into().unwrap_or([0; 8]));
    if sock.opts.lock().filter_locked {
        return Err(EPERM);
    }
    if count == 0 || count > MAX_INSNS || addr == 0 {
        return Err(EINVAL);
    }
    let raw = user.read_bytes(UserPtr::<u8>::new(addr).slice(count * INSN_BYTES))?;
    let mut insns = Vec::new();
    insns.try_reserve_exact(count).map_err(|_| ENOMEM)?;
    insns.extend(raw.chunks_exact(INSN_BYTES).map(Insn::decode));
    let filter = Arc::new(Filter::new(insns)?);
    let mut o = sock.opts.lock();
    if o.filter_locked {
        return Err(EPERM); // locked meanwhile by another thread
    }
    o.filter = Some(filter);
    Ok(())
}

/// SO_DETACH_FILTER (ENOENT when none is attached) and SO_LOCK_FILTER
/// (once on, it stays on: EPERM to turn it off, and to attach or detach).
pub fn filter_control(sock: &Socket, opt: SockOpt, v: i32) -> Result<(), Errno> {
    let mut o = sock.opts.lock();
    match opt {
        SockOpt::DetachFilter if o.filter_locked => Err(EPERM),
        SockOpt::DetachFilter => o.filter.take().map(|_| ()).ok_or(ENOENT),
        _ if o.filter_locked && v == 0 => Err(EPERM),
        _ => {
            o.filter_locked = v != 0;
            Ok(())
        }
    }
}

/// The interface index of `name` (lo, and eth0 with the network device).
fn interface_index(name: &[u8]) -> Option<i32> {
    crate::net::ifaces::list().iter().find(|i| i.name.as_bytes() == name).map(|i| i.index as i32)
}

fn bind_to_device(user: &mut UserSpace, sock: &Socket, val: UserPtr<u8>, len: usize) -> Result<(), Errno> {
    let n = len.min(NAME_MAX - 1);
    let raw = user.read_bytes(val.slice(n))?;
    let name = raw.split(|&b| b == 0).next().unwrap_or(&[]);
    let index = if name.is_empty() { 0 } else { interface_index(name).ok_or(ENODEV)? };
    sock.opts.lock().bound_dev = index;
    Ok(())
}

/// SO_BINDTOIFINDEX: EINVAL below 0, ENODEV for no such interface.
pub fn bind_to_index(sock: &Socket, index: i32) -> Result<(), Errno> {
    if index < 0 {
        return Err(EINVAL);
    }
    if index != 0 && !crate::net::ifaces::list().iter().any(|i| i.index as i32 == index) {
        return Err(ENODEV);
    }
    sock.opts.lock().bound_dev = index;
    Ok(())
}

/// TCP_CONGESTION: "cubic" or "reno"; ENOENT for any other name.
fn congestion(user: &mut UserSpace, sock: &Socket, val: UserPtr<u8>, len: usize) -> Result<(), Errno> {
    let raw = user.read_bytes(val.slice(len.min(NAME_MAX - 1)))?;
    let name = raw.split(|&b| b == 0).next().unwrap_or(&[]);
    let at = CONGESTION.iter().position(|c| c.as_bytes() == name).ok_or(ENOENT)?;
    sock.opts.lock().congestion = at;
    Ok(())
}

/// The credentials Linux records for a socket's peer: a connected (or
/// listening, or socketpair'd) AF_UNIX socket has the one process's
/// (pid 1, root); anything else has none.
fn peer_cred(sock: &Socket) -> Option<[i32; 3]> {
    if sock.family != Family::Unix {
        return None;
    }
    let connected = !matches!(*sock.state.lock(), State::Idle) || sock.dgram_peer.lock().is_some();
    connected.then_some([1, 0, 0])
}

/// A getsockopt value with the generic length rule (as much as fits).
pub fn value(sock: &Socket, opt: SockOpt) -> Result<Option<Vec<u8>>, Errno> {
    let ints = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    Ok(Some(match opt {
        // No credentials: pid 0, uid and gid -1 (cred_to_ucred).
        SockOpt::PeerCred => ints(&peer_cred(sock).unwrap_or([0, -1, -1])),
        SockOpt::MemInfo => {
            let o = sock.opts.lock();
            // rmem_alloc, rcvbuf, wmem_alloc, sndbuf, fwd_alloc,
            // wmem_queued, optmem, backlog, drops.
            ints(&[waiting(sock) as i32, o.rcvbuf, 0, o.sndbuf, 0, 0, 0, 0, 0])
        }
        SockOpt::Mtu => ints(&[path_mtu(sock)?]),
        SockOpt::TxTime => {
            let t = sock.opts.lock().txtime;
            ints(&[t.0, t.1 as i32])
        }
        SockOpt::Congestion => {
            let mut name = [0u8; NAME_MAX];
            let c = CONGESTION[sock.opts.lock().congestion % CONGESTION.len()];
            name[..c.len()].copy_from_slice(c.as_bytes());
            name.to_vec()
        }
        _ => return Ok(None),
    }))
}

/// Bytes waiting to be read (SO_MEMINFO's receive allocation).
fn waiting(sock: &Socket) -> usize {
    match (&*sock.state.lock(), &sock.queue) {
        (State::Connected(e), _) => e.pending(),
        (_, Some(q)) => q.next_len(),
        _ => 0,
    }
}

/// IP_MTU/IPV6_MTU: the route's MTU to the connected peer (loopback's
/// 65,536 or the device's 1,500); ENOTCONN without a peer.
fn path_mtu(sock: &Socket) -> Result<i32, Errno> {
    let Some(SockAddr::Inet(peer)) = sock.peer.lock().clone() else { return Err(ENOTCONN) };
    Ok(if crate::net::nic::routes(&peer) { 1500 } else { 65536 })
}

/// getsockopt of the options with a length rule of their own: the bytes
/// written and what *optlen becomes, or None for the generic ones.
pub fn get_sized(user: &mut UserSpace, sock: &Socket, opt: SockOpt, val: UserPtr<u8>, room: usize) -> Result<Option<usize>, Errno> {
    let put = |user: &mut UserSpace, b: &[u8]| user.write_bytes(val.slice(b.len()), b).map(|()| Some(b.len()));
    match opt {
        SockOpt::Filter => get_filter(user, sock, val, room).map(Some),
        SockOpt::PeerName => {
            let Some(peer) = sock.peer.lock().clone() else { return Err(ENOTCONN) };
            let addr = peer.encode();
            if addr.len() < room {
                return Err(EINVAL); // Linux's rule: the buffer may not be larger
            }
            put(user, &addr[..room])
        }
        SockOpt::PeerGroups => match peer_cred(sock) {
            Some(_) => Ok(Some(0)), // root is in no supplementary group
            None => Err(ENODATA),
        },
        SockOpt::Cookie | SockOpt::NetnsCookie => {
            let netns = opt == SockOpt::NetnsCookie;
            if room < 8 || (netns && room != 8) {
                return Err(EINVAL);
            }
            let v = if netns { 1 } else { cookie(sock) };
            put(user, &v.to_le_bytes())
        }
        SockOpt::MaxPacingRate => {
            let rate = sock.opts.lock().max_pacing;
            if room >= 8 {
                return put(user, &rate.to_le_bytes());
            }
            let v = rate.min(u64::from(u32::MAX)) as u32;
            let b = v.to_le_bytes();
            put(user, &b[..room.min(4)])
        }
        SockOpt::BindToDevice => {
            let index = sock.opts.lock().bound_dev;
            if index == 0 {
                return Ok(Some(0));
            }
            let list = crate::net::ifaces::list();
            let name = list.iter().find(|i| i.index as i32 == index).map_or("", |i| i.name);
            let mut b = name.as_bytes().to_vec();
            b.push(0);
            if b.len() > room {
                return Err(EINVAL);
            }
            put(user, &b)
        }
        _ => Ok(None),
    }
}

/// SO_GET_FILTER: counts instructions, not bytes. No filter: 0. A room
/// of 0 asks for the count; a room smaller than the program is EINVAL.
fn get_filter(user: &mut UserSpace, sock: &Socket, val: UserPtr<u8>, room: usize) -> Result<usize, Errno> {
    let Some(f) = sock.opts.lock().filter.clone() else { return Ok(0) };
    let n = f.insns().len();
    if room == 0 {
        return Ok(n);
    }
    if room < n {
        return Err(EINVAL);
    }
    let bytes: Vec<u8> = f.insns().iter().flat_map(|i| i.encode()).collect();
    user.write_bytes(val.slice(bytes.len()), &bytes)?;
    Ok(n)
}

/// SO_COOKIE: a number unique to the socket, given the first time it is
/// asked for (sock_gen_cookie), never 0.
fn cookie(sock: &Socket) -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let mut o = sock.opts.lock();
    if o.cookie == 0 {
        o.cookie = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    o.cookie
}
