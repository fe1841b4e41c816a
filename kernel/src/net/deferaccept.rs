//! TCP_DEFER_ACCEPT's clock. A listener with the option keeps a new
//! connection from accept (and from its EPOLLIN) until the connection
//! has data (or the peer's FIN or reset), or until the deferral has passed
//! (stream.rs's Listener). Data wakes the listener through the
//! connection's pipe, which notifies the listener's poll hub until the
//! connection is accepted; the end of a deferral has nothing to wake it,
//! so each queued connection's deadline is kept here and a kernel timer
//! event pokes its listener then.
//!
//! Linux does the same in its own terms: the handshake's last ACK, if it
//! carries no data, is dropped and the connection stays half-open; the
//! SYN-ACK is sent again when the deferral's retransmissions are spent,
//! and the peer's ACK of it makes the connection (accepted without data,
//! tcp_check_req). The deferral reads back as those retransmissions'
//! seconds (setting 5 gives 7: sockoptval.rs), which is when both accept.

use super::socket::Socket;
use crate::sched::event::TimerEvent;
use crate::sync::{Lock, LockClass};
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;

/// (deadline in monotonic ns, the listener to poke). The accept queues'
/// class: taken with no other lock held, or under the NIC's (nic/tcp.rs).
static DUE: Lock<Vec<(u64, Weak<Socket>)>> = Lock::new(LockClass::AcceptQueue, Vec::new());
static TIMER: TimerEvent = TimerEvent::new(fire);

/// The deferral of `listener` (0: none), in ns.
pub fn deferral_ns(listener: &Socket) -> u64 {
    let retransmits = listener.opts.lock().defer_accept;
    gometal_core::linux::sockoptval::defer_seconds(retransmits) as u64 * 1_000_000_000
}

/// Pokes `listener` at `at` (a connection's deferral ends then). Without
/// room on the heap the poke is lost: data still wakes the listener.
pub fn poke_at(listener: &Arc<Socket>, at: u64) {
    let mut due = DUE.lock();
    if due.try_reserve(1).is_err() {
        return;
    }
    due.push((at, Arc::downgrade(listener)));
    let first = due.iter().map(|d| d.0).min().unwrap_or(u64::MAX);
    drop(due);
    TIMER.arm(first);
}

fn fire() {
    let now = crate::sched::clock::monotonic_ns();
    let mut woken = Vec::new();
    let next = {
        let mut due = DUE.lock();
        due.retain(|(at, l)| {
            if *at > now {
                return l.strong_count() > 0;
            }
            woken.push(l.clone());
            false
        });
        due.iter().map(|d| d.0).min().unwrap_or(u64::MAX)
    };
    if next != u64::MAX {
        TIMER.arm(next);
    }
    for l in woken.iter().filter_map(Weak::upgrade) {
        l.changed();
    }
}
