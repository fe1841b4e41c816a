//! The NIC's socket sets: SHARDS smoltcp socket sets under the one
//! interface, each TCP connection in the set its addresses hash to
//! (gometal_core::net::netshard says why), and which sets have work waiting.
//! A poll hands smoltcp the set of each frame it receives, and steps
//! (pump, egress, next deadline) only the sets marked here, so its cost
//! follows the connections that moved rather than all that are open.
//!
//! What marks a set: a frame for it (poll.rs); a program that wrote to,
//! read from, shut down or closed one of its connections (net/stream.rs
//! tags those endpoints with their set); its smoltcp deadline passing (the
//! timer); keep-alive options that settled; address resolution (every
//! set: a socket anywhere may wait for the answer). Shard 0 also holds the
//! raw UDP and ICMP sockets, so datagrams mark it. An idle CPU sweeps one
//! more set in turn, so a change nothing marked still moves, a little later.
//!
//! Each set has its own lock (class NicSet): a poll takes it under the NIC
//! lock, one set at a time, to hand smoltcp a frame, step the set or send
//! its segments; a program's read takes it alone and copies straight out
//! of its connection's smoltcp receive buffer (rx.rs), so a read waits at
//! most for one set's step, never for a whole poll.

use super::tcp::Tcp;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use gometal_core::net::netshard::{self, DirtySet, SHARDS, WORDS};
use gometal_core::linux::sockaddr::InetAddr;
use crate::sync::{Lock, LockClass};
use alloc::boxed::Box;
use smoltcp::iface::SocketSet;
use spin::Once;

/// One socket set and its TCP bookkeeping.
pub struct Shard {
    pub sockets: SocketSet<'static>,
    pub tcp: Tcp,
}

/// When a set's smoltcp deadline was last asked, and what it is (kept
/// under the NIC lock: the timer looks at every set's).
#[derive(Clone, Copy)]
pub struct Timing {
    pub asked: u64,
    /// Monotonic ns; u64::MAX: none.
    pub deadline: u64,
}

impl Shard {
    fn new(shard: usize) -> Shard {
        let mut tcp = Tcp::default();
        tcp.shard = shard;
        Shard { sockets: SocketSet::new(alloc::vec::Vec::new()), tcp }
    }
}

static SETS: Once<Box<[Lock<Shard>]>> = Once::new();

/// Makes all the sets (when the NIC comes up) and their timings.
pub fn make() -> alloc::vec::Vec<Timing> {
    SETS.call_once(|| (0..SHARDS).map(|s| Lock::new(LockClass::NicSet, Shard::new(s))).collect());
    alloc::vec![Timing { asked: 0, deadline: u64::MAX }; SHARDS]
}

/// Set `shard` behind its lock (the NIC is up: a connection tagged with a
/// set exists only then).
pub fn set(shard: usize) -> &'static Lock<Shard> {
    let sets = SETS.get().expect("NIC socket sets made before use");
    &sets[shard % SHARDS]
}

/// The sets with work waiting, a bit each.
static DIRTY: [AtomicU64; WORDS] = [const { AtomicU64::new(0) }; WORDS];
/// The next set an idle CPU sweeps.
static SWEEP: AtomicUsize = AtomicUsize::new(0);

/// Set `shard` has work.
pub fn mark(shard: usize) {
    let s = shard % SHARDS;
    DIRTY[s / 64].fetch_or(1 << (s % 64), Ordering::SeqCst);
}

/// Every set has work (address resolution answered, or a listener's full
/// queue got room: a set may hold connections waiting for it).
pub fn mark_all() {
    for w in &DIRTY {
        w.store(u64::MAX, Ordering::SeqCst);
    }
}

/// Marks the next set in turn (an idle CPU's sweep).
pub fn mark_next() {
    mark(SWEEP.fetch_add(1, Ordering::Relaxed) % SHARDS);
}

/// Takes the marks.
pub fn take() -> DirtySet {
    let mut d = DirtySet::default();
    for (word, w) in d.0.iter_mut().zip(&DIRTY) {
        *word = w.swap(0, Ordering::SeqCst);
    }
    d
}

/// The set of a TCP connection with `remote` on our `local_port`: the one
/// its frames from `remote` hash to.
pub fn of(remote: &InetAddr, local_port: u16) -> usize {
    let ip: &[u8] = if remote.is_v4() { &remote.ip[12..] } else { &remote.ip };
    netshard::shard_of(ip, remote.port, local_port)
}
