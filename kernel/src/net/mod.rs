//! Sockets: AF_INET and AF_INET6 (TCP, UDP, ICMP echo) on loopback
//! and the network device (nic/), AF_UNIX stream and datagram. A socket is a
//! file (file.rs implements fs's `File` for it); the system calls in
//! linux/socket.rs and linux/sockmsg.rs decode arguments and call in here.
//!
//! Loopback is short-circuited in the kernel rather than run through a TCP/IP
//! stack: a connected stream is two pipes (stream.rs), a datagram is queued
//! straight onto the receiving socket (dgram.rs). Both ends live in this one
//! kernel, so there is nothing to lose, reorder or retransmit, and TCP's
//! machinery (windows, Nagle, delayed ACK) would only add latency; what a
//! program can observe (addresses, ports, errnos, half-close, resets,
//! readiness) follows Linux. The network device has a real stack (nic/).
//!
//! Locking: each socket has its own state lock; the binding tables (one per
//! protocol, inet.rs; one for AF_UNIX names, unixns.rs) have one lock each,
//! held only to bind, look up and unbind. No lock covers all sockets.

pub mod channel;
pub mod data;
pub mod deferaccept;
pub mod dgram;
pub mod filter;
mod file;
pub mod ifaces;
pub mod inet;
pub mod msgbuf;
pub mod msgpipe;
pub mod netlink;
pub mod nic;
pub mod options;
pub mod ping;
pub mod socket;
pub mod stream;
pub mod timeo;
pub mod unixns;
pub mod watchers;

pub use socket::{Family, Socket, SockType};

use core::sync::atomic::{AtomicUsize, Ordering};

/// Sockets open now and the most at once, for the statistics.
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

pub(crate) fn count_open() {
    let now = LIVE.fetch_add(1, Ordering::Relaxed) + 1;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

pub(crate) fn count_closed() {
    LIVE.fetch_sub(1, Ordering::Relaxed);
}

/// (sockets open now, the most open at once).
pub fn counts() -> (usize, usize) {
    (LIVE.load(Ordering::Relaxed), PEAK.load(Ordering::Relaxed))
}
