//! What the NIC did, for the `stats` kernel argument: how often the stack
//! was polled and why, how often a CPU found the NIC lock held, how long it was held,
//! and how often the pump found a program's pipe full (the remote then
//! sees our receive window close) and later reopened it.

use crate::sched::latency::Histogram;
use core::sync::atomic::{AtomicU64, Ordering};

pub struct Counter(AtomicU64);

impl Counter {
    pub const fn new() -> Self {
        Counter(AtomicU64::new(0))
    }
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

pub static POLL_IRQ: Counter = Counter::new();
pub static POLL_KICK: Counter = Counter::new();
pub static POLL_IDLE: Counter = Counter::new();
pub static POLL_TIMER: Counter = Counter::new();
/// Reads that asked the timer for a poll (nic::room).
pub static POLL_ROOM: Counter = Counter::new();
pub static FRAMES_IN: Counter = Counter::new();
pub static FRAMES_OUT: Counter = Counter::new();
/// Frames sent while a poll the timer started ran (retransmissions,
/// keep-alive probes: what only the timer sends when nothing else polls).
pub static TIMER_FRAMES: Counter = Counter::new();
/// Reads that took a receive buffer from more than half full to half or
/// less (the window they opened is sent at the next poll, which they asked
/// of the timer).
pub static WINDOW_LOW: Counter = Counter::new();
/// A poll found the lock held and left it to the holder.
pub static LOCK_BUSY: Counter = Counter::new();
/// Connections kept waiting for room on their listener's full queue.
pub static QUEUE_FULL: Counter = Counter::new();
/// Half-open connections dropped to make room for new SYNs (tcp.rs).
pub static SYN_DROPPED: Counter = Counter::new();
/// Connections given keep-alive from their program's options.
pub static KEEPALIVE_SET: Counter = Counter::new();
/// Time spent in each part of a poll (ns): smoltcp's ingress, the pump,
/// smoltcp's egress, and asking smoltcp for its next deadline.
pub static INGRESS_NS: Counter = Counter::new();
pub static PUMP_NS: Counter = Counter::new();
pub static EGRESS_NS: Counter = Counter::new();
pub static TIMER_NS: Counter = Counter::new();
/// Rounds of a poll, and socket sets (shard.rs) stepped in them.
pub static ROUNDS: Counter = Counter::new();
pub static SETS_STEPPED: Counter = Counter::new();
/// Received packets larger than a 1,514-byte frame (large receive),
/// packets dropped for a bad TCP checksum, frames sent for the device to
/// segment (TSO).
pub static FRAMES_BIG: Counter = Counter::new();
pub static FRAMES_BAD: Counter = Counter::new();
pub static FRAMES_TSO: Counter = Counter::new();
pub static LOCK_HOLD: Histogram = Histogram::new();

pub fn report() {
    if !super::present() {
        return;
    }
    crate::println!(
        "gometal: net: polls irq {} kick {} idle {} timer {}, left to the lock holder {}; frames in {} out {}, out from timer polls {}; reads from a receive buffer over half full {}; keepalive {}; accept queue full {}; half-open dropped for new SYNs {}; reads that asked the timer for a poll {}",
        POLL_IRQ.get(),
        POLL_KICK.get(),
        POLL_IDLE.get(),
        POLL_TIMER.get(),
        LOCK_BUSY.get(),
        FRAMES_IN.get(),
        FRAMES_OUT.get(),
        TIMER_FRAMES.get(),
        WINDOW_LOW.get(),
        KEEPALIVE_SET.get(),
        QUEUE_FULL.get(),
        SYN_DROPPED.get(),
        POLL_ROOM.get()
    );
    let ms = |c: &Counter| c.get() / 1_000_000;
    crate::println!(
        "gometal: net: time in polls: ingress {} ms, pump {} ms, egress {} ms, next deadline {} ms; {} rounds stepped {} socket sets of {}",
        ms(&INGRESS_NS),
        ms(&PUMP_NS),
        ms(&EGRESS_NS),
        ms(&TIMER_NS),
        ROUNDS.get(),
        SETS_STEPPED.get(),
        gometal_core::net::netshard::SHARDS
    );
    crate::println!(
        "gometal: net: frames in larger than the MTU {}, dropped for a bad checksum {}; out for the device to segment {}",
        FRAMES_BIG.get(),
        FRAMES_BAD.get(),
        FRAMES_TSO.get()
    );
    LOCK_HOLD.report("net: NIC lock hold");
    report_pairs();
}

/// Frames through each queue pair (multiqueue: more than one).
fn report_pairs() {
    let Some(guard) = super::NIC.try_lock() else { return };
    let Some(nic) = guard.as_ref() else { return };
    let frames = nic.dev.net.pair_frames();
    let list = |f: &dyn Fn(&(u64, u64)) -> u64| frames.iter().map(|p| alloc::format!("{}", f(p))).collect::<alloc::vec::Vec<_>>().join(" ");
    crate::println!("gometal: net: queue pairs {}: packets in {}; frames out {}", frames.len(), list(&|p| p.0), list(&|p| p.1));
}
