//! The NIC's socket sets: SHARDS smoltcp socket sets under the one
//! interface, each TCP connection in the set its addresses hash to
//! (gometal_core::netshard says why), and which sets have work waiting.
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

use super::tcp::Tcp;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use gometal_core::netshard::{self, DirtySet, SHARDS, WORDS};
use gometal_core::sockaddr::InetAddr;
use smoltcp::iface::SocketSet;

/// One socket set and its TCP bookkeeping.
pub struct Shard {
    pub sockets: SocketSet<'static>,
    pub tcp: Tcp,
    /// When smoltcp was last asked for this set's next deadline.
    pub asked: u64,
    /// This set's next deadline (monotonic ns; u64::MAX: none).
    pub deadline: u64,
}

impl Shard {
    fn new(shard: usize) -> Shard {
        let mut tcp = Tcp::default();
        tcp.shard = shard;
        Shard { sockets: SocketSet::new(alloc::vec::Vec::new()), tcp, asked: 0, deadline: u64::MAX }
    }
}

/// All the sets, made when the NIC comes up.
pub fn make() -> alloc::vec::Vec<Shard> {
    (0..SHARDS).map(Shard::new).collect()
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
