//! SO_RCVTIMEO and SO_SNDTIMEO: how long a blocking socket call may wait.
//! Linux measures the limit from the start of the call; when it passes the
//! call fails with EAGAIN (recv, send, accept, an AF_UNIX connect waiting
//! for room) or EINPROGRESS (a TCP connect still under way), unless it
//! already moved some bytes, which it then reports. Waits take the deadline
//! (sched/wait.rs blocks until it), so nothing polls.

use super::socket::Socket;
use gometal_core::linux::sockopt::timeout_ns;

/// The monotonic deadline a call starting now gets from `timeval`.
fn deadline(timeval: (i64, i64)) -> Option<u64> {
    // Stored values passed setsockopt's EDOM check; a bad one means no limit.
    let ns = timeout_ns(timeval.0, timeval.1).ok().flatten()?;
    Some(crate::sched::clock::monotonic_ns().saturating_add(ns))
}

/// When a receive (or accept) starting now must give up.
pub fn recv_deadline(sock: &Socket) -> Option<u64> {
    deadline(sock.opts.lock().rcvtimeo)
}

/// When a send (or connect) starting now must give up.
pub fn send_deadline(sock: &Socket) -> Option<u64> {
    deadline(sock.opts.lock().sndtimeo)
}
