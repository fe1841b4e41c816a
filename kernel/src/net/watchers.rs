//! Who watches one direction of a connection (a seqpacket message pipe,
//! msgpipe.rs, or a NIC connection's receive or send buffer, nic/rx.rs
//! and nic/tx.rs): the threads blocked reading or writing it, and the
//! epoll hubs of the sockets at its two ends, with the change counter
//! that edge-triggered epoll compares. Each direction says when it
//! changed; this file wakes whoever watches, and holds the one loop a
//! blocking call runs: try, and if nothing could be done, sleep until the
//! next change (no later than a deadline: SO_RCVTIMEO, SO_SNDTIMEO).

use crate::fs::pipe::wait_errno;
use crate::fs::pollhub::{link, notify_linked, Hub};
use crate::sched::wait::WaitQueue;
use crate::sync::{Lock, LockClass};
use alloc::sync::Arc;
use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::linux::errno::{Errno, EAGAIN};

pub struct Watchers {
    waiters: WaitQueue,
    /// Bumped at every change, for edge-triggered epoll.
    generation: AtomicU64,
    /// The hubs of the sockets at the reading end and the writing end
    /// (stream.rs links them).
    linked: Lock<[Option<Arc<Hub>>; 2]>,
}

impl Watchers {
    pub fn new() -> Watchers {
        Watchers { waiters: WaitQueue::new(), generation: AtomicU64::new(0), linked: Lock::new(LockClass::PollLinks, [None, None]) }
    }

    /// Something changed that a blocked call or epoll may be waiting for.
    pub fn changed(&self) {
        self.bump();
        self.waiters.wake_all();
        notify_linked(&self.linked);
    }

    /// A change only edge-triggered epoll needs to see (this end's own
    /// read or write: nobody blocks waiting for it).
    pub fn bump(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Makes changes notify `hub` too: the hub of the socket at the
    /// reading end (`side` 0) or writing end (1).
    pub fn link(&self, side: usize, hub: &Arc<Hub>) {
        link(&self.linked, side, hub);
    }

    /// Runs `attempt` (Some: done, with its result; None: nothing could be
    /// done yet) once when `nonblock` (EAGAIN for None), else again at
    /// every change until it is done, no later than `deadline` (monotonic
    /// ns; EAGAIN after it, EINTR on a signal).
    pub fn wait<R>(&self, nonblock: bool, deadline: Option<u64>, mut attempt: impl FnMut() -> Option<Result<R, Errno>>) -> Result<R, Errno> {
        if nonblock {
            return attempt().unwrap_or(Err(EAGAIN));
        }
        self.waiters.wait_until(deadline, attempt).map_err(wait_errno)?
    }
}
