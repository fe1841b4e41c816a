//! Polling the NIC: who polls (poll_soon: whoever asks, unless another CPU
//! already polls, which then polls once more for it), what a poll does
//! (frames in, each to its socket set; then the pump and frames out for the
//! sets with work), smoltcp's timer (a kernel timer event armed from each
//! set's `Interface::poll_at`), and the last poll at exit.

use super::{device, now, present, shard, stats, Nic, NIC};
use crate::sched::event::TimerEvent;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use gometal_core::net::netshard::{self, DirtySet, Route};
use smoltcp::iface::PollIngressSingleResult;

/// A poll was asked for while the lock was held (poll_soon).
static PENDING: AtomicBool = AtomicBool::new(false);

/// The NIC lock, timed for the statistics.
struct Timed<'a> {
    guard: crate::sync::LockGuard<'a, Option<Nic>>,
    since: u64,
}

impl core::ops::Deref for Timed<'_> {
    type Target = Option<Nic>;
    fn deref(&self) -> &Option<Nic> {
        &self.guard
    }
}

impl core::ops::DerefMut for Timed<'_> {
    fn deref_mut(&mut self) -> &mut Option<Nic> {
        &mut self.guard
    }
}

impl Drop for Timed<'_> {
    fn drop(&mut self) {
        stats::LOCK_HOLD.record(crate::sched::clock::monotonic_ns().saturating_sub(self.since));
    }
}

fn try_lock() -> Option<Timed<'static>> {
    let guard = NIC.try_lock();
    if guard.is_none() {
        stats::LOCK_BUSY.add(1);
    }
    Some(Timed { guard: guard?, since: crate::sched::clock::monotonic_ns() })
}

/// smoltcp's own deadline (retransmission, keep-alive, TIME-WAIT): set
/// after every poll from `Interface::poll_at`, so those timers run on time
/// when nothing else polls.
static TIMER: TimerEvent = TimerEvent::new(on_timer);
/// The soonest the timer polls again after a poll: smoltcp says "now" when
/// it has something it could not send (the device's queue was full), and
/// the device's interrupt will poll for that anyway.
const TIMER_MIN_NS: u64 = 1_000_000;

/// The timer fired and the poll it asked for has not run yet (it may run
/// on the CPU that held the lock): that poll's frames count as the timer's.
static TIMER_DUE: AtomicBool = AtomicBool::new(false);

fn on_timer() {
    stats::POLL_TIMER.add(1);
    TIMER_DUE.store(true, Ordering::SeqCst);
    poll_soon();
}

/// A poll asked for by this time (monotonic ns) besides smoltcp's own
/// deadline (keepalive.rs's settling options); u64::MAX: none.
static POLL_BY: AtomicU64 = AtomicU64::new(u64::MAX);

/// Makes a poll happen by monotonic time `ns` at the latest (called during
/// a poll; its arm_timer takes it into account).
pub(super) fn poll_by(ns: u64) {
    POLL_BY.fetch_min(ns, Ordering::SeqCst);
}

/// Notes set `s`'s next deadline after a step. Asking smoltcp costs a
/// pass over the set's sockets, so during a burst of polls a set is asked
/// at most every DEADLINE_EVERY_NS; in between its deadline is the end of
/// that interval at the latest, when the timer steps it and asks again, so
/// no deadline is missed by more than that.
fn note_deadline(nic: &mut Nic, s: usize, now_ns: u64) {
    let t = &mut nic.timing[s];
    if now_ns < t.asked + DEADLINE_EVERY_NS {
        t.deadline = t.deadline.min(t.asked + DEADLINE_EVERY_NS);
        return;
    }
    t.asked = now_ns;
    t.deadline = match nic.iface.poll_at(now(), &shard::set(s).lock().sockets) {
        Some(t) => (t.total_micros().max(0) as u64).saturating_mul(1000).max(now_ns + TIMER_MIN_NS),
        None => u64::MAX,
    };
}

/// The sets whose deadline has come (the timer fired); their deadlines are
/// asked again once they have been stepped.
fn due(nic: &mut Nic) -> DirtySet {
    let now_ns = crate::sched::clock::monotonic_ns();
    let mut due = DirtySet::default();
    for (s, t) in nic.timing.iter_mut().enumerate() {
        if t.deadline <= now_ns {
            due = due.with(s);
            t.deadline = u64::MAX;
        }
    }
    due
}

/// Arms the timer for the soonest deadline of any set, or a poll asked for
/// (`poll_by`), whichever comes first.
fn arm_timer(nic: &Nic) {
    let now_ns = crate::sched::clock::monotonic_ns();
    let forced = POLL_BY.swap(u64::MAX, Ordering::SeqCst);
    let soonest = nic.timing.iter().map(|t| t.deadline).min().unwrap_or(u64::MAX);
    TIMER.arm(soonest.min(forced.max(now_ns + TIMER_MIN_NS)));
}

const DEADLINE_EVERY_NS: u64 = 2_000_000;

/// Has the timer event poll as soon as it can (on this CPU, from its timer
/// interrupt, once the calling thread is back in user mode), not the
/// caller: a program's read() must not run the NIC's poll. The poll re-arms
/// the timer for smoltcp's deadlines; should one run before this arms and
/// miss the caller's mark, POLL_BY has the next arm come within
/// TIMER_MIN_NS.
pub(super) fn poll_from_timer() {
    let now_ns = crate::sched::clock::monotonic_ns();
    poll_by(now_ns);
    TIMER.arm(now_ns);
}

/// Polls now, or has the CPU that holds the NIC lock poll once more
/// before it lets go: no CPU ever spins for the lock here. (Spinning was
/// the 4-CPU stall: with more CPUs than host cores, the CPUs waiting
/// for the lock took the host time the holder needed.)
pub fn poll_soon() {
    loop {
        PENDING.store(true, Ordering::SeqCst);
        let Some(mut guard) = try_lock() else { return }; // the holder sees PENDING
        while PENDING.swap(false, Ordering::SeqCst) {
            if let Some(nic) = guard.as_mut() {
                poll(nic);
            }
        }
        drop(guard);
        // A CPU that failed try_lock after our last look left PENDING set.
        if !PENDING.load(Ordering::SeqCst) {
            return;
        }
    }
}

/// The program exited: before the machine powers off, what it wrote to
/// its connections goes out (Linux keeps sending a closed socket's data
/// after its process is gone; here the machine would stop with it). Polls
/// until every connection's data is acknowledged, for at most
/// DRAIN_LIMIT_NS. Other CPUs are stopped, so nothing else polls.
pub fn drain() {
    if !present() {
        return;
    }
    let clock = crate::sched::clock::monotonic_ns;
    let limit = clock() + DRAIN_LIMIT_NS;
    while clock() < limit {
        let Some(mut guard) = NIC.try_lock() else { return }; // a stopped CPU held it
        let Some(nic) = guard.as_mut() else { return };
        shard::mark_all();
        poll(nic);
        let sent = |s: usize| {
            let sh = shard::set(s).lock();
            sh.tcp.all_sent(&sh.sockets)
        };
        if (0..netshard::SHARDS).all(sent) {
            return;
        }
        drop(guard);
        let pause = clock() + 50_000;
        while clock() < pause {
            core::hint::spin_loop();
        }
    }
}

const DRAIN_LIMIT_NS: u64 = 2_000_000_000;

/// Extra smoltcp egress passes per poll round, over all sets (each pass
/// sends at most one segment per socket; with TSO up to 62 KiB).
const EGRESS_PASSES: usize = 32;

/// Rounds of one poll at most: a flood (10,000 connections closing at once)
/// took seconds in 64 rounds, with the CPU's threads waiting.
const ROUNDS: usize = 16;

/// Polls smoltcp and pumps connections until no frame waits (bounded, so
/// a flood cannot keep a CPU here forever): frames in, each to its socket
/// set, then for the sets with work the pump and frames out, and again
/// only if more frames came meanwhile. Frames are taken one at a time so
/// that a listening socket used up by a SYN is moved aside before the next
/// SYN of its set (which then gets a new one): a burst of connections is
/// not reset.
pub(super) fn poll(nic: &mut Nic) {
    let clock = crate::sched::clock::monotonic_ns;
    let (for_timer, sent_before) = (TIMER_DUE.swap(false, Ordering::SeqCst), stats::FRAMES_OUT.get());
    let mut work = if for_timer { due(nic) } else { DirtySet::default() };
    nic.dev.net.ack_interrupt();
    nic.dev.reclaim();
    let (noted, noted_sets, settle_next) = super::keepalive::take_settled();
    if settle_next != u64::MAX {
        poll_by(settle_next); // the rest once they have settled
    }
    work = work.union(noted_sets);
    for round in 0..ROUNDS {
        let t0 = clock();
        work = work.union(ingress(nic)).union(shard::take());
        let t1 = clock();
        for s in work.iter() {
            let mut guard = shard::set(s).lock();
            let sh = &mut *guard;
            let settled: &[usize] = if noted_sets.has(s) { &noted } else { &[] };
            sh.tcp.step(&mut sh.sockets, settled);
            if s == 0 {
                nic.udp.step(&mut sh.sockets);
                nic.icmp.step(&mut sh.sockets);
            }
        }
        let t2 = clock();
        // smoltcp sends one segment per socket per pass: a set's pass is
        // repeated while it sent something (a stream's window, not one
        // segment per poll), from a budget of EGRESS_PASSES per round, so
        // a burst over every set (10,000 connections closing) costs one
        // pass per set as before.
        let mut extra = EGRESS_PASSES;
        for s in work.iter() {
            let mut sh = shard::set(s).lock();
            let mut r = nic.iface.poll_egress(now(), &mut nic.dev, &mut sh.sockets);
            while r != smoltcp::iface::PollResult::None && extra > 0 {
                extra -= 1;
                r = nic.iface.poll_egress(now(), &mut nic.dev, &mut sh.sockets);
            }
        }
        nic.dev.flush();
        let t3 = clock();
        for s in work.iter() {
            note_deadline(nic, s, t3);
        }
        stats::INGRESS_NS.add(t1 - t0);
        stats::PUMP_NS.add(t2 - t1);
        stats::EGRESS_NS.add(t3 - t2);
        stats::TIMER_NS.add(clock() - t3);
        stats::ROUNDS.add(1);
        stats::SETS_STEPPED.add(work.count() as u64);
        work = DirtySet::default();
        if !nic.dev.has_frames() {
            break;
        }
        if round == ROUNDS - 1 {
            poll_by(t3); // the rest after the threads had a turn (the timer's minimum)
        }
    }
    arm_timer(nic);
    if for_timer {
        stats::TIMER_FRAMES.add(stats::FRAMES_OUT.get().saturating_sub(sent_before));
    }
}

/// Gives smoltcp the frames that wait (a queue's worth at most), each with
/// the socket set it is for; returns the sets that got frames.
fn ingress(nic: &mut Nic) -> DirtySet {
    let mut got = DirtySet::default();
    for _ in 0..device::QUEUE {
        let Some(frame) = nic.dev.peek() else { break };
        let set = match netshard::route(frame) {
            Route::Tcp { shard, syn } => {
                if let Some(syn) = syn.filter(|s| nic.listened.contains(&s.to_port)) {
                    let mut guard = shard::set(shard).lock();
                    let sh = &mut *guard;
                    sh.tcp.ensure_listener(&mut sh.sockets, &syn);
                }
                shard
            }
            Route::Neighbor => {
                got = DirtySet::ALL; // a socket of any set may wait for it
                0
            }
            Route::Other => 0,
        };
        got = got.with(set);
        let mut guard = shard::set(set).lock();
        let sh = &mut *guard;
        match nic.iface.poll_ingress_single(now(), &mut nic.dev, &mut sh.sockets) {
            PollIngressSingleResult::None => break,
            PollIngressSingleResult::PacketProcessed => stats::FRAMES_IN.add(1),
            PollIngressSingleResult::SocketStateChanged => {
                stats::FRAMES_IN.add(1);
                sh.tcp.refill(&mut sh.sockets)
            }
        }
    }
    got
}
