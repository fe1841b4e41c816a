//! Internet ports: which socket holds which (address, port) for TCP and for
//! UDP, with Linux's bind rules (a wildcard address covers every local
//! address of its family, and [::] also IPv4 unless IPV6_V6ONLY;
//! SO_REUSEADDR lets a TCP socket share a port nobody listens on, and
//! sockets that all set SO_REUSEPORT share one even to listen), the
//! ephemeral range, and finding the socket a connection or a datagram is
//! for: among a SO_REUSEPORT group, the one a hash of the sender's
//! address and port picks, so connections and senders spread over the
//! group and one sender's datagrams always reach the same socket (as
//! Linux's reuseport selection does). The local addresses are loopback (127.0.0.0/8, ::1) and, with a
//! network device, its addresses (10.0.2.15, fec0::15).

use super::socket::{Family, SockType, Socket, State};
use alloc::collections::BTreeMap;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU16, Ordering};
use gometal_core::linux::errno::*;
use gometal_core::linux::sockaddr::{InetAddr, SockAddr};
use crate::sync::{Lock, LockClass};

/// net.ipv4.ip_local_port_range.
const EPHEMERAL: core::ops::RangeInclusive<u16> = 32768..=60999;

struct Entry {
    addr: InetAddr,
    v6only: bool,
    reuse_addr: bool,
    reuse_port: bool,
    sock: Weak<Socket>,
}

type Table = Lock<BTreeMap<u16, Vec<Entry>>>;

static TCP: Table = Lock::new(LockClass::PortTable, BTreeMap::new());
static UDP: Table = Lock::new(LockClass::PortTable, BTreeMap::new());
/// ICMP sockets: a ping socket's "port" is its echo identifier.
static ICMP: Table = Lock::new(LockClass::PortTable, BTreeMap::new());
static NEXT_PORT: AtomicU16 = AtomicU16::new(40000);

fn table(sock: &Socket) -> &'static Table {
    match (sock.ty, sock.icmp) {
        (_, Some(_)) => &ICMP,
        (SockType::Stream | SockType::SeqPacket, _) => &TCP,
        (SockType::Dgram, _) => &UDP,
    }
}

/// A held port; dropping it (the socket closed) frees it.
pub struct Binding {
    table: &'static Table,
    port: u16,
    sock: *const Socket,
}

// SAFETY: `sock` is only compared, never dereferenced.
unsafe impl Send for Binding {}
// SAFETY: as above.
unsafe impl Sync for Binding {}

impl Drop for Binding {
    fn drop(&mut self) {
        let mut t = self.table.lock();
        if let Some(v) = t.get_mut(&self.port) {
            v.retain(|e| e.sock.as_ptr() != self.sock);
            if v.is_empty() {
                t.remove(&self.port);
            }
        }
    }
}

/// Does a socket bound to `e` receive what is addressed to `ip`?
fn covers(e: &Entry, ip: &InetAddr) -> bool {
    if !e.addr.is_unspecified() {
        return e.addr.ip == ip.ip;
    }
    if e.addr.is_v4() {
        ip.is_v4()
    } else {
        !ip.is_v4() || !e.v6only
    }
}

/// Could two bindings on one port receive the same packet?
fn overlap(a: &Entry, b: &Entry) -> bool {
    match (a.addr.is_unspecified(), b.addr.is_unspecified()) {
        (false, false) => a.addr.ip == b.addr.ip,
        (true, false) => covers(a, &b.addr),
        (false, true) => covers(b, &a.addr),
        (true, true) => {
            let v4 = |e: &Entry| e.addr.is_v4() || !e.v6only;
            let v6 = |e: &Entry| !e.addr.is_v4();
            (v4(a) && v4(b)) || (v6(a) && v6(b))
        }
    }
}

/// Is `e` listening? Read from the socket's flag, not its state: the
/// state's lock comes before the table's. The socket it names is kept
/// alive in `keep` so that it is never dropped (which takes the table
/// lock) under the table lock.
fn listening(e: &Entry, keep: &mut Vec<Arc<Socket>>) -> bool {
    let Some(s) = e.sock.upgrade() else { return false };
    let l = s.listening.load(core::sync::atomic::Ordering::Acquire);
    keep.push(s);
    l
}

fn conflicts(ty: SockType, existing: &[Entry], new: &Entry, keep: &mut Vec<Arc<Socket>>) -> bool {
    existing.iter().any(|e| {
        let shared = (e.reuse_port && new.reuse_port) || (e.reuse_addr && new.reuse_addr && (ty == SockType::Dgram || !listening(e, keep)));
        e.sock.strong_count() > 0 && overlap(e, new) && !shared
    })
}

/// An address of this machine: the wildcard, loopback, or the NIC's own
/// (10.0.2.15), which packets never leave the machine for.
fn is_local(a: &InetAddr) -> bool {
    a.is_unspecified() || a.is_loopback() || super::nic::is_own(a)
}

/// bind(2) for an Internet socket. Port 0 picks a free ephemeral port.
pub fn bind(sock: &Arc<Socket>, addr: InetAddr) -> Result<InetAddr, Errno> {
    if (sock.family == Family::Inet6) != addr.v6 {
        return Err(EAFNOSUPPORT);
    }
    // IP_FREEBIND / IP_TRANSPARENT (and the IPv6 pair) allow an address
    // this machine does not have, as on Linux.
    if !is_local(&addr) && !sock.opts.lock().free_bind() {
        return Err(EADDRNOTAVAIL);
    }
    let mut bound = sock.bound.lock();
    if bound.is_some() {
        return Err(EINVAL);
    }
    let (v6only, reuse_addr, reuse_port) = {
        let o = sock.opts.lock();
        (o.v6only, o.reuse_addr, o.reuse_port)
    };
    if addr.is_v4() && addr.v6 && v6only {
        return Err(EINVAL); // an IPv4-mapped address on an IPv6-only socket
    }
    let mut entry = Entry { addr, v6only, reuse_addr, reuse_port, sock: Arc::downgrade(sock) };
    let mut keep = Vec::new(); // dropped after the table lock
    let mut t = table(sock).lock();
    let port = if addr.port != 0 {
        if conflicts(sock.ty, t.get(&addr.port).map_or(&[][..], |v| v), &entry, &mut keep) {
            return Err(EADDRINUSE);
        }
        addr.port
    } else {
        free_port(&t).ok_or(EADDRINUSE)?
    };
    entry.addr.port = port;
    t.entry(port).or_default().push(entry);
    drop(t);
    *bound = Some(super::socket::Bound::Inet(Binding { table: table(sock), port, sock: Arc::as_ptr(sock) }));
    let local = addr.with_port(port);
    *sock.local.lock() = Some(SockAddr::Inet(local));
    Ok(local)
}

fn free_port(t: &BTreeMap<u16, Vec<Entry>>) -> Option<u16> {
    let span = (EPHEMERAL.end() - EPHEMERAL.start()) as usize + 1;
    (0..span).find_map(|_| {
        let p = NEXT_PORT.fetch_add(1, Ordering::Relaxed);
        let p = EPHEMERAL.start() + p % span as u16;
        (!t.contains_key(&p)).then_some(p)
    })
}

/// The address a packet to `to` leaves from, as `sock`'s family writes
/// it: a local destination's own address (an unspecified one means this
/// host, as on Linux), else the NIC's.
fn source_for(sock: &Socket, to: &InetAddr) -> InetAddr {
    let src = if to.is_v4() {
        InetAddr::v4(super::nic::source_v4(to), 0)
    } else if to.is_loopback() || to.is_unspecified() {
        InetAddr::v6(InetAddr::V6_LOOPBACK, 0)
    } else {
        super::nic::own_for(to, 0) // fec0::15: our own, or routed
    };
    src.as_family(sock.family == Family::Inet6)
}

/// The local address `sock` talks to `to` from, binding it to an ephemeral
/// port first if it has none. `pin` (a connect): the socket's name becomes
/// that specific address; otherwise (a sendto) an unbound socket is bound
/// to the wildcard, as Linux autobinds it. ENETUNREACH for a destination
/// neither local nor carried by the NIC.
pub fn autobind(sock: &Arc<Socket>, to: InetAddr, pin: bool) -> Result<InetAddr, Errno> {
    if (sock.family == Family::Inet6) != to.v6 {
        return Err(EAFNOSUPPORT);
    }
    if !is_local(&to) && !super::nic::routes(&to) {
        return Err(ENETUNREACH);
    }
    let src = source_for(sock, &to);
    let current = match sock.local.lock().clone() {
        Some(SockAddr::Inet(a)) => Some(a),
        _ => None,
    };
    match current {
        Some(a) if a.is_unspecified() => {
            let local = src.with_port(a.port);
            if pin {
                *sock.local.lock() = Some(SockAddr::Inet(local));
            }
            Ok(local)
        }
        Some(a) => Ok(a),
        None => {
            let any = if sock.family == Family::Inet6 { InetAddr::v6([0; 16], 0) } else { InetAddr::v4([0; 4], 0) };
            let name = if pin { InetAddr { port: 0, ..src } } else { any };
            match bind(sock, name) {
                Err(EADDRINUSE) => Err(EADDRNOTAVAIL),
                Err(e) => Err(e),
                Ok(a) => Ok(src.with_port(a.port)),
            }
        }
    }
}

/// The socket bound to (a wildcard covering) `to`, preferring an exact
/// address, that `want` accepts; among a SO_REUSEPORT group bound to that
/// same address, the one the sender `from` hashes to.
fn find(table: &Table, to: &InetAddr, from: Option<&InetAddr>, want: impl Fn(&Socket) -> bool) -> Option<Arc<Socket>> {
    let to = if to.is_unspecified() { InetAddr { ip: source_for_ip(to), ..*to } } else { *to };
    // Upgraded under the lock, looked at (and dropped) after it.
    let candidates: Vec<(InetAddr, bool, Arc<Socket>)> = {
        let t = table.lock();
        let entries = t.get(&to.port)?;
        entries.iter().filter(|e| covers(e, &to)).filter_map(|e| e.sock.upgrade().map(|s| (e.addr, e.reuse_port, s))).collect()
    };
    let mut found: Vec<(InetAddr, bool, Arc<Socket>)> = candidates.into_iter().filter(|(_, _, s)| want(s)).collect();
    found.sort_by_key(|(addr, _, _)| addr.is_unspecified());
    let (best, reuse_port) = found.first().map(|(a, r, _)| (*a, *r))?;
    let group: Vec<Arc<Socket>> = if reuse_port {
        found.into_iter().filter(|(a, r, _)| *r && a.ip == best.ip).map(|(_, _, s)| s).collect()
    } else {
        found.into_iter().take(1).map(|(_, _, s)| s).collect()
    };
    let pick = from.map_or(0, |f| gometal_core::net::reuseport::pick(&f.ip, f.port, to.port, group.len()));
    group.into_iter().nth(pick)
}

fn source_for_ip(to: &InetAddr) -> [u8; 16] {
    if to.is_v4() {
        InetAddr::v4([127, 0, 0, 1], 0).ip
    } else {
        InetAddr::V6_LOOPBACK
    }
}

/// The socket listening for TCP connections to `to`.
/// (For a connection from `from`: it picks among a SO_REUSEPORT group.)
pub fn find_listener(to: &InetAddr, from: Option<&InetAddr>) -> Option<Arc<Socket>> {
    find(&TCP, to, from, |s| matches!(*s.state.lock(), State::Listening(_)))
}

/// The UDP socket datagrams to `to` go to.
/// (For a datagram from `from`: it picks among a SO_REUSEPORT group.)
pub fn find_udp(to: InetAddr, from: Option<&InetAddr>) -> Option<Arc<Socket>> {
    find(&UDP, &to, from, |_| true)
}

/// The ping socket whose echo identifier is `ident`, for replies to `to`.
pub fn find_ping(to: InetAddr, ident: u16) -> Option<Arc<Socket>> {
    find(&ICMP, &to.with_port(ident), None, |s| s.icmp == Some(super::socket::Icmp::Ping))
}
