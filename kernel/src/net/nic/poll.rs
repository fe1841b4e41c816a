//! Polling the NIC: who polls (poll_soon: whoever asks, unless another hart
//! already polls, which then polls once more for it), what a poll does
//! (frames in, the pump, frames out), smoltcp's timer (a kernel timer
//! event armed from `Interface::poll_at`), and the last poll at exit.

use super::{device, now, present, stats, Nic, NIC};
use crate::sched::event::TimerEvent;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use smoltcp::iface::PollIngressSingleResult;

/// A poll was asked for while the lock was held (poll_soon).
static PENDING: AtomicBool = AtomicBool::new(false);

/// The NIC lock, timed for the statistics.
struct Timed<'a> {
    guard: spin::MutexGuard<'a, Option<Nic>>,
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
/// on the hart that held the lock): that poll's frames count as the timer's.
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

/// Arms the timer for smoltcp's next deadline. Asking costs a pass over
/// every socket, so during a burst of polls it is asked at most every
/// DEADLINE_EVERY_NS; the timer then fires by the end of that interval and
/// its poll asks again, so no deadline is missed by more than that.
fn arm_timer(nic: &mut Nic) {
    let now_ns = crate::sched::clock::monotonic_ns();
    let forced = POLL_BY.swap(u64::MAX, Ordering::SeqCst);
    if now_ns < nic.deadline_asked + DEADLINE_EVERY_NS {
        TIMER.arm_no_later((nic.deadline_asked + DEADLINE_EVERY_NS).min(forced));
        return;
    }
    nic.deadline_asked = now_ns;
    let at = match nic.iface.poll_at(now(), &nic.sockets) {
        Some(t) => (t.total_micros().max(0) as u64).saturating_mul(1000).max(now_ns + TIMER_MIN_NS),
        None => u64::MAX,
    };
    TIMER.arm(at.min(forced.max(now_ns + TIMER_MIN_NS)));
}

const DEADLINE_EVERY_NS: u64 = 2_000_000;

/// Polls now, or has the hart that holds the NIC lock poll once more
/// before it lets go: no hart ever spins for the lock here. (Spinning was
/// the 4-hart stall: with more harts than host cores, the harts waiting
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
        // A hart that failed try_lock after our last look left PENDING set.
        if !PENDING.load(Ordering::SeqCst) {
            return;
        }
    }
}

/// The program exited: before the machine powers off, what it wrote to
/// its connections goes out (Linux keeps sending a closed socket's data
/// after its process is gone; here the machine would stop with it). Polls
/// until every connection's data is acknowledged, for at most
/// DRAIN_LIMIT_NS. Other harts are stopped, so nothing else polls.
pub fn drain() {
    if !present() {
        return;
    }
    let clock = crate::sched::clock::monotonic_ns;
    let limit = clock() + DRAIN_LIMIT_NS;
    while clock() < limit {
        let Some(mut guard) = NIC.try_lock() else { return }; // a stopped hart held it
        let Some(nic) = guard.as_mut() else { return };
        poll(nic);
        if nic.tcp.all_sent(&nic.sockets) {
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

/// Polls smoltcp and pumps connections until no frame waits (bounded, so
/// a flood cannot keep a hart here forever): frames in, the pump, frames
/// out, and again only if more frames came meanwhile — each step walks
/// every socket, so a round that would find nothing is not run. Frames
/// are taken one at a time so that a listening socket used up by a SYN is
/// replaced before the next SYN: a burst of connections is not reset.
pub(super) fn poll(nic: &mut Nic) {
    let clock = crate::sched::clock::monotonic_ns;
    let (for_timer, sent_before) = (TIMER_DUE.swap(false, Ordering::SeqCst), stats::FRAMES_OUT.get());
    nic.dev.net.ack_interrupt();
    for _ in 0..64 {
        let t0 = clock();
        for _ in 0..device::QUEUE {
            match nic.iface.poll_ingress_single(now(), &mut nic.dev, &mut nic.sockets) {
                PollIngressSingleResult::None => break,
                PollIngressSingleResult::PacketProcessed => stats::FRAMES_IN.add(1),
                PollIngressSingleResult::SocketStateChanged => {
                    stats::FRAMES_IN.add(1);
                    nic.tcp.refill(&mut nic.sockets)
                }
            }
        }
        let t1 = clock();
        nic.tcp.step(&mut nic.sockets);
        nic.udp.step(&mut nic.sockets);
        nic.icmp.step(&mut nic.sockets);
        let t2 = clock();
        nic.iface.poll_egress(now(), &mut nic.dev, &mut nic.sockets);
        let t3 = clock();
        stats::INGRESS_NS.add(t1 - t0);
        stats::PUMP_NS.add(t2 - t1);
        stats::EGRESS_NS.add(t3 - t2);
        if !nic.dev.has_frames() {
            break;
        }
    }
    let t = clock();
    arm_timer(nic);
    stats::TIMER_NS.add(clock() - t);
    if for_timer {
        stats::TIMER_FRAMES.add(stats::FRAMES_OUT.get().saturating_sub(sent_before));
    }
}
