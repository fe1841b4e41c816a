//! AF_NETLINK sockets of the NETLINK_ROUTE family: a program asks the
//! kernel about its interfaces, addresses and routes (RTM_GETLINK,
//! RTM_GETADDR, RTM_GETROUTE, dumps or single links) and reads the answer
//! from the socket as datagrams. Answers are made at the send, from
//! ifaces.rs, in gometal_core::net::netlink's wire format, and queued; a recv
//! takes one datagram. Changes (RTM_NEW*/DEL*) are refused with EPERM in
//! an NLMSG_ERROR, as for a program without CAP_NET_ADMIN; multicast
//! groups may be joined but nothing is ever announced (nothing changes).

use super::ifaces::{self, Interface};
use crate::fs::epoll::in_out;
use crate::fs::fd::OpenFile;
use crate::fs::file::File;
use crate::fs::pollhub::{Hub, PollHub};
use crate::fs::stat::Stat;
use crate::sched::wait::WaitQueue;
use alloc::collections::{BTreeSet, VecDeque};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use gometal_core::linux::errno::*;
use gometal_core::net::netlink::{self as nl, Reply, Request};
use crate::sync::lockorder::{Lock, LockClass};

/// Largest datagram of a dump (Linux's NLMSG_GOODSIZE on 4 KiB pages is
/// a little less; Go reads with a page-sized buffer).
const DUMP_DATAGRAM: usize = 4096;
/// Bytes of answers a socket holds before a send is refused (SO_RCVBUF's
/// default).
const QUEUE_LIMIT: usize = 212_992;

/// Port ids in use; the first socket takes the process's pid, as on Linux.
static PORTS: Lock<BTreeSet<u32>> = Lock::new(LockClass::NetlinkPorts, BTreeSet::new());
static NEXT_PORT: AtomicU32 = AtomicU32::new(0xffff_f000);

pub struct NetlinkSocket {
    /// The process's pid, the port id the first socket takes.
    pid: u32,
    port: AtomicU32,
    groups: AtomicU32,
    queue: Lock<VecDeque<Vec<u8>>>,
    waiters: WaitQueue,
    hub: Arc<Hub>,
    generation: AtomicU64,
}

impl NetlinkSocket {
    /// A socket of the process `pid`.
    pub fn new(pid: u32) -> Arc<NetlinkSocket> {
        Arc::new(NetlinkSocket {
            pid,
            port: AtomicU32::new(0),
            groups: AtomicU32::new(0),
            queue: Lock::new(LockClass::NetlinkQueue, VecDeque::new()),
            waiters: WaitQueue::new(),
            hub: Arc::new(Hub::new()),
            generation: AtomicU64::new(0),
        })
    }

    /// The port id, given one first if it has none (autobind).
    pub fn port(&self) -> u32 {
        let now = self.port.load(Ordering::Acquire);
        if now != 0 {
            return now;
        }
        let mut ports = PORTS.lock();
        let chosen = if !ports.contains(&self.pid) { self.pid } else { NEXT_PORT.fetch_sub(1, Ordering::Relaxed) };
        match self.port.compare_exchange(0, chosen, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => {
                ports.insert(chosen);
                chosen
            }
            Err(other) => other,
        }
    }

    pub fn groups(&self) -> u32 {
        self.groups.load(Ordering::Relaxed)
    }

    /// bind(2): a port id (0: the kernel picks) and multicast groups.
    pub fn bind(&self, port: u32, groups: u32) -> Result<(), Errno> {
        self.groups.store(groups, Ordering::Relaxed);
        let current = self.port.load(Ordering::Acquire);
        if port == 0 || port == current {
            self.port();
            return Ok(());
        }
        if current != 0 {
            return Err(EINVAL); // bound already, to another id
        }
        let mut ports = PORTS.lock();
        if !ports.insert(port) {
            return Err(EADDRINUSE);
        }
        self.port.store(port, Ordering::Release);
        Ok(())
    }

    /// A request to the kernel: the answer is queued for recv.
    pub fn send(&self, data: &[u8]) -> Result<usize, Errno> {
        let requests = nl::parse(data).map_err(|_| EINVAL)?;
        let port = self.port();
        let mut datagrams = Vec::new();
        for r in &requests {
            datagrams.extend(answer(r, port));
        }
        let mut q = self.queue.lock();
        let held: usize = q.iter().map(|d| d.len()).sum();
        if held + datagrams.iter().map(|d| d.len()).sum::<usize>() > QUEUE_LIMIT {
            return Err(ENOBUFS);
        }
        q.extend(datagrams);
        drop(q);
        self.changed();
        Ok(data.len())
    }

    /// Takes (or with `peek` copies) the next datagram into `buf`:
    /// (bytes copied, the datagram's length).
    pub fn recv(&self, buf: &mut [u8], nonblock: bool, peek: bool) -> Result<(usize, usize), Errno> {
        let mut take = || {
            let mut q = self.queue.lock();
            let d = if peek { q.front().cloned() } else { q.pop_front() }?;
            let n = d.len().min(buf.len());
            buf[..n].copy_from_slice(&d[..n]);
            Some((n, d.len()))
        };
        let got = if nonblock { take().ok_or(EAGAIN)? } else { self.waiters.wait_until(None, take).map_err(|_| EINTR)? };
        self.changed();
        Ok(got)
    }

    fn changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.waiters.wake_all();
        self.hub.notify();
    }
}

impl Drop for NetlinkSocket {
    fn drop(&mut self) {
        let port = *self.port.get_mut();
        if port != 0 {
            PORTS.lock().remove(&port);
        }
    }
}

/// The datagrams that answer request `r`.
fn answer(r: &Request, port: u32) -> Vec<Vec<u8>> {
    if r.flags & nl::NLM_F_REQUEST == 0 {
        return Vec::new(); // not a request: Linux ignores it
    }
    let multi = Reply { seq: r.seq, pid: port, flags: nl::NLM_F_MULTI };
    let single = Reply { flags: 0, ..multi };
    let family = r.family();
    let wanted = |f: u8| family == nl::AF_UNSPEC || family == f;
    let list = ifaces::list();
    let mut msgs: Vec<Vec<u8>> = Vec::new();
    match r.kind {
        nl::RTM_GETLINK if r.is_dump() => msgs.extend(list.iter().map(|i| link(multi, i))),
        nl::RTM_GETLINK => {
            let found = list.iter().find(|i| match r.link_name() {
                Some(name) => i.name.as_bytes() == name,
                None => i.index == r.link_index(),
            });
            let Some(i) = found else { return alloc::vec![nl::error(port, r, ENODEV.value() as i32)] };
            let mut replies = alloc::vec![link(single, i)];
            if r.flags & nl::NLM_F_ACK != 0 {
                replies.push(nl::error(port, r, 0)); // the acknowledgement after the answer
            }
            return replies;
        }
        nl::RTM_GETADDR if r.is_dump() => {
            for i in &list {
                if wanted(nl::AF_INET) {
                    msgs.push(addr4(multi, i));
                }
                if wanted(nl::AF_INET6) {
                    msgs.push(addr6(multi, i));
                }
            }
        }
        nl::RTM_GETROUTE if r.is_dump() => {
            for i in &list {
                routes(multi, i, family, &mut msgs);
            }
        }
        nl::RTM_GETADDR | nl::RTM_GETROUTE => return alloc::vec![nl::error(port, r, EOPNOTSUPP.value() as i32)],
        kind if (nl::RTM_NEWLINK..100).contains(&kind) => return alloc::vec![nl::error(port, r, EPERM.value() as i32)],
        _ => return alloc::vec![nl::error(port, r, EOPNOTSUPP.value() as i32)],
    }
    if !r.is_dump() {
        return msgs;
    }
    msgs.push(nl::done(multi));
    nl::pack(msgs, DUMP_DATAGRAM)
}

fn link(r: Reply, i: &Interface) -> Vec<u8> {
    let loopback = i.kind == nl::ARPHRD_LOOPBACK;
    let l = nl::Link {
        index: i.index,
        name: i.name,
        kind: i.kind,
        flags: i.flags,
        mtu: i.mtu,
        address: i.mac,
        broadcast: if loopback { [0; 6] } else { [0xff; 6] },
        txqlen: 1000,
        operstate: if loopback { 0 } else { 6 },
    };
    nl::link(r, &l)
}

fn addr4(r: Reply, i: &Interface) -> Vec<u8> {
    let (ip, prefix) = i.ipv4;
    let loopback = i.kind == nl::ARPHRD_LOOPBACK;
    let host_bits = u32::MAX.checked_shr(prefix as u32).unwrap_or(0);
    let broadcast = (u32::from_be_bytes(ip) | host_bits).to_be_bytes();
    let a = nl::Addr {
        family: nl::AF_INET,
        prefix,
        scope: if loopback { nl::RT_SCOPE_HOST } else { nl::RT_SCOPE_UNIVERSE },
        index: i.index,
        address: &ip,
        broadcast: (!loopback).then_some(broadcast),
        label: i.name,
    };
    nl::addr(r, &a)
}

fn addr6(r: Reply, i: &Interface) -> Vec<u8> {
    let (ip, prefix) = i.ipv6;
    // fec0::/10 is site-local; ::1 is the host's.
    let scope = if i.kind == nl::ARPHRD_LOOPBACK { nl::RT_SCOPE_HOST } else if ip[0] == 0xfe && ip[1] & 0xc0 == 0xc0 { nl::RT_SCOPE_SITE } else { nl::RT_SCOPE_UNIVERSE };
    nl::addr(r, &nl::Addr { family: nl::AF_INET6, prefix, scope, index: i.index, address: &ip, broadcast: None, label: i.name })
}

/// The main table's routes through `i` (its network and its gateway),
/// and the local table's route for loopback.
fn routes(r: Reply, i: &Interface, family: u8, out: &mut Vec<Vec<u8>>) {
    let base = nl::Route {
        family: nl::AF_INET,
        dst_len: 0,
        table: nl::RT_TABLE_MAIN,
        protocol: nl::RTPROT_KERNEL,
        scope: nl::RT_SCOPE_LINK,
        kind: nl::RTN_UNICAST,
        dst: None,
        gateway: None,
        prefsrc: None,
        oif: i.index,
        priority: None,
    };
    let (v4, prefix4) = i.ipv4;
    let (v6, prefix6) = i.ipv6;
    let mask4 = u32::MAX.checked_shl(32 - prefix4 as u32).unwrap_or(0);
    let net4 = (u32::from_be_bytes(v4) & mask4).to_be_bytes();
    let mut net6 = [0u8; 16];
    net6[..(prefix6 / 8) as usize].copy_from_slice(&v6[..(prefix6 / 8) as usize]);
    let v4_ok = family == nl::AF_UNSPEC || family == nl::AF_INET;
    let v6_ok = family == nl::AF_UNSPEC || family == nl::AF_INET6;
    if i.kind == nl::ARPHRD_LOOPBACK {
        if v4_ok {
            out.push(nl::route(r, &nl::Route { table: nl::RT_TABLE_LOCAL, scope: nl::RT_SCOPE_HOST, kind: nl::RTN_LOCAL, dst_len: prefix4, dst: Some(&net4), prefsrc: Some(&v4), ..base }));
        }
        if v6_ok {
            out.push(nl::route(r, &nl::Route { family: nl::AF_INET6, dst_len: 128, scope: nl::RT_SCOPE_UNIVERSE, dst: Some(&v6), priority: Some(256), ..base }));
        }
        return;
    }
    let Some((gw4, gw6)) = i.gateways else { return };
    if v4_ok {
        out.push(nl::route(r, &nl::Route { protocol: nl::RTPROT_BOOT, scope: nl::RT_SCOPE_UNIVERSE, gateway: Some(&gw4), ..base }));
        out.push(nl::route(r, &nl::Route { dst_len: prefix4, dst: Some(&net4), prefsrc: Some(&v4), ..base }));
    }
    if v6_ok {
        out.push(nl::route(r, &nl::Route { family: nl::AF_INET6, dst_len: prefix6, scope: nl::RT_SCOPE_UNIVERSE, dst: Some(&net6), priority: Some(256), ..base }));
        out.push(nl::route(r, &nl::Route { family: nl::AF_INET6, protocol: nl::RTPROT_BOOT, scope: nl::RT_SCOPE_UNIVERSE, gateway: Some(&gw6), priority: Some(1024), ..base }));
    }
}

/// read and write are recv and send; epoll sees answers waiting.
impl File for NetlinkSocket {
    fn read(&self, of: &OpenFile, buf: &mut [u8], _: Option<u64>) -> Result<usize, Errno> {
        Ok(self.recv(buf, of.nonblocking(), false)?.0)
    }

    fn write(&self, _: &OpenFile, data: &[u8], _: Option<u64>) -> Result<usize, Errno> {
        self.send(data)
    }

    fn stat(&self) -> Stat {
        Stat { mode: 0o140000 | 0o777, nlink: 1, ..Stat::default() }
    }

    fn poll_hub(&self) -> Option<PollHub> {
        Some(PollHub::Own(self.hub.clone()))
    }

    fn poll(&self, _: &OpenFile) -> (u32, u64) {
        (in_out(!self.queue.lock().is_empty(), true), self.generation.load(Ordering::Acquire))
    }
}
