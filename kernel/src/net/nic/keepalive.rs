//! TCP keep-alive through the NIC: SO_KEEPALIVE with TCP_KEEPIDLE,
//! TCP_KEEPINTVL and TCP_KEEPCNT (Go sets all four on every TCP connection,
//! 15 s by default) become smoltcp's keep-alive interval and timeout. The
//! probes are sent by smoltcp's timer (the NIC's kernel timer event), so
//! they go out while the program sleeps, and a peer that stopped answering
//! resets the connection (the program reads ECONNRESET).
//!
//! setsockopt only notes the socket (`CHANGED`); a poll at least SETTLE_NS
//! after the socket's last change applies its options (the options lock is
//! taken under the NIC lock, as the pump does; the NIC's timer makes sure
//! such a poll comes). So no per-poll cost comes with keep-alive, one
//! connection's options cost one pass, not one per connection open (Go
//! sets four on every accepted connection), and Go's four options are
//! applied together (see SETTLE_NS for why that matters).

use crate::net::socket::{Socket, State};
use alloc::vec::Vec;
use gometal_core::net::netshard::DirtySet;
use crate::sync::{Lock, LockClass};
use smoltcp::socket::tcp;
use smoltcp::time::Duration;

const SOL_SOCKET: i32 = 1;
const SO_KEEPALIVE: i32 = 9;
const IPPROTO_TCP: i32 = 6;
const TCP_KEEPIDLE: i32 = 4;
const TCP_KEEPINTVL: i32 = 5;
const TCP_KEEPCNT: i32 = 6;
/// Linux's defaults (net.ipv4.tcp_keepalive_time, _intvl, _probes).
const DEFAULT_IDLE_S: i32 = 7200;
const DEFAULT_INTVL_S: i32 = 75;
const DEFAULT_CNT: i32 = 9;

/// Connections whose keep-alive options changed: the program's socket, by
/// address (compared with the connections' sockets, never dereferenced),
/// when it last did, and the NIC socket set that pumps it (shard.rs).
static CHANGED: Lock<Vec<Noted>> = Lock::new(LockClass::KeepaliveChanges, Vec::new());

#[derive(Clone, Copy)]
struct Noted {
    sock: usize,
    when: u64,
    shard: usize,
}
/// How long a socket's options must stay unchanged before they are
/// applied: Go sets SO_KEEPALIVE, then TCP_KEEPIDLE, INTVL and CNT back to
/// back, and smoltcp keeps the first keep-alive deadline it is given until
/// a segment comes, so applying SO_KEEPALIVE alone (Linux's 7200 s) would
/// hold the first probe for two hours.
pub const SETTLE_NS: u64 = 2_000_000;
/// The most sockets noted between two polls; past it the oldest notes are
/// dropped (their connections keep their previous keep-alive).
const MAX_NOTED: usize = 4096;

/// Whether setsockopt(level, name) is one this file reads.
pub fn is_keepalive_option(level: i32, name: i32) -> bool {
    (level, name) == (SOL_SOCKET, SO_KEEPALIVE) || (level == IPPROTO_TCP && matches!(name, TCP_KEEPIDLE | TCP_KEEPINTVL | TCP_KEEPCNT))
}

/// A program changed a keep-alive option of `sock`. Only a connection
/// through the NIC is noted: one still opening or not yet accepted takes
/// its options when it is handed over (tcp.rs, outbound.rs).
pub fn changed(sock: &Socket) {
    let shard = match &*sock.state.lock() {
        State::Connected(e) => e.nic_shard(),
        _ => None,
    };
    let Some(shard) = shard else { return };
    let at = sock as *const Socket as usize;
    let now = crate::sched::clock::monotonic_ns();
    let mut noted = CHANGED.lock();
    if let Some(n) = noted.iter_mut().find(|n| n.sock == at) {
        n.when = now;
        return;
    }
    if noted.len() >= MAX_NOTED || noted.try_reserve(1).is_err() {
        return;
    }
    noted.push(Noted { sock: at, when: now, shard });
}

/// The sockets whose options have settled (sorted), the socket sets they
/// are in, and when the next of the others will have (u64::MAX: none).
pub fn take_settled() -> (Vec<usize>, DirtySet, u64) {
    let now = crate::sched::clock::monotonic_ns();
    let mut noted = CHANGED.lock();
    let mut shards = DirtySet::default();
    if noted.is_empty() {
        return (Vec::new(), shards, u64::MAX);
    }
    let mut settled = Vec::new();
    let mut next = u64::MAX;
    noted.retain(|n| {
        if now >= n.when + SETTLE_NS && settled.try_reserve(1).is_ok() {
            settled.push(n.sock);
            shards = shards.with(n.shard);
            false
        } else {
            next = next.min(n.when + SETTLE_NS);
            true
        }
    });
    settled.sort_unstable();
    (settled, shards, next)
}

/// Gives `s` the keep-alive its program's socket asks for. smoltcp probes
/// after every `interval` without a segment from the peer; Linux waits
/// KEEPIDLE for the first probe and KEEPINTVL between the next ones, so
/// the interval is KEEPIDLE and the connection is given up KEEPINTVL ×
/// KEEPCNT after that.
pub fn apply(s: &mut tcp::Socket, sock: &Socket) {
    let o = sock.opts.lock();
    let get = |level, name, default| o.flags.get(&(level, name)).copied().filter(|v| *v > 0).unwrap_or(default) as u64;
    if o.flags.get(&(SOL_SOCKET, SO_KEEPALIVE)).copied().unwrap_or(0) == 0 {
        s.set_keep_alive(None);
        s.set_timeout(None);
        return;
    }
    let idle = get(IPPROTO_TCP, TCP_KEEPIDLE, DEFAULT_IDLE_S);
    let give_up = idle + get(IPPROTO_TCP, TCP_KEEPINTVL, DEFAULT_INTVL_S) * get(IPPROTO_TCP, TCP_KEEPCNT, DEFAULT_CNT);
    s.set_keep_alive(Some(Duration::from_secs(idle)));
    s.set_timeout(Some(Duration::from_secs(give_up)));
    super::stats::KEEPALIVE_SET.add(1);
}
