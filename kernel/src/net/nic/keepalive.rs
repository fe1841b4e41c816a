//! TCP keep-alive through the NIC: SO_KEEPALIVE with TCP_KEEPIDLE,
//! TCP_KEEPINTVL and TCP_KEEPCNT (Go sets all four on every TCP connection,
//! 15 s by default) become smoltcp's keep-alive interval and timeout. The
//! probes are sent by smoltcp's timer (the NIC's kernel timer event), so
//! they go out while the program sleeps, and a peer that stopped answering
//! resets the connection (the program reads ECONNRESET).
//!
//! setsockopt only notes the socket (`CHANGED`); the next poll applies the
//! options of the connections noted (the options lock is taken under the
//! NIC lock, as the pump does), so no per-poll cost comes with keep-alive
//! and one connection's options cost one pass, not one per connection
//! open (Go sets four on every accepted connection). That poll is not
//! forced at once on purpose: Go sets SO_KEEPALIVE first and TCP_KEEPIDLE
//! next, and smoltcp keeps the first deadline it was given (Linux's 7200 s
//! default here) until a segment arrives; a poll after the program's next
//! block or I/O sees all four options together.

use crate::net::socket::Socket;
use alloc::vec::Vec;
use spin::Mutex;
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

/// Sockets whose keep-alive options changed since the last poll, by
/// address (compared with the connections' sockets, never dereferenced).
static CHANGED: Mutex<Vec<usize>> = Mutex::new(Vec::new());
/// The most sockets noted between two polls; past it the oldest notes are
/// dropped (their connections keep their previous keep-alive).
const MAX_NOTED: usize = 4096;

/// Whether setsockopt(level, name) is one this file reads.
pub fn is_keepalive_option(level: i32, name: i32) -> bool {
    (level, name) == (SOL_SOCKET, SO_KEEPALIVE) || (level == IPPROTO_TCP && matches!(name, TCP_KEEPIDLE | TCP_KEEPINTVL | TCP_KEEPCNT))
}

/// A program changed a keep-alive option of `sock`.
pub fn changed(sock: &Socket) {
    let at = sock as *const Socket as usize;
    let mut noted = CHANGED.lock();
    if noted.contains(&at) || noted.len() >= MAX_NOTED || noted.try_reserve(1).is_err() {
        return;
    }
    noted.push(at);
}

/// The sockets noted since the last call, sorted.
pub fn take_changed() -> Vec<usize> {
    let mut noted = core::mem::take(&mut *CHANGED.lock());
    noted.sort_unstable();
    noted
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
