//! Timed wakeups and the scheduler tick. Sleeping threads wait in a map
//! ordered by deadline; each hart's timer is programmed (through the SBI) for
//! the earlier of its next tick and the earliest deadline. A thread has at
//! most one entry (it waits for one thing at a time), and removes it when it
//! is woken early, so the map never grows beyond the number of threads.

use super::clock;
use super::hart::Hart;
use super::scheduler::wake_if_generation;
use super::thread::Thread;
use crate::param::TICK_NS;
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use spin::Mutex;

/// (deadline in monotonic ns, tid, wait generation).
type Key = (u64, u32, u64);

static SLEEPERS: Mutex<BTreeMap<Key, Arc<Thread>>> = Mutex::new(BTreeMap::new());

/// Wakes `thread` at `deadline_ns` if it is still in wait `generation`.
pub fn add(deadline_ns: u64, thread: Arc<Thread>, generation: u64) {
    SLEEPERS.lock().insert((deadline_ns, thread.tid, generation), thread);
    // This hart's timer may be set for a later tick: pull it in.
    program(super::hart::this_hart());
}

/// Forgets a wakeup that is no longer needed (the wait ended early).
pub fn cancel(deadline_ns: u64, thread: &Thread, generation: u64) {
    SLEEPERS.lock().remove(&(deadline_ns, thread.tid, generation));
}

fn earliest() -> Option<u64> {
    SLEEPERS.lock().keys().next().map(|k| k.0)
}

/// Wakes every thread whose deadline has passed.
pub fn fire_expired() {
    let now = clock::monotonic_ns();
    loop {
        let due = {
            let mut map = SLEEPERS.lock();
            match map.first_key_value() {
                Some((k, _)) if k.0 <= now => map.pop_first(),
                _ => None,
            }
        };
        match due {
            Some(((_, _, generation), t)) => wake_if_generation(&t, generation),
            None => break,
        }
    }
}

/// Programs this hart's timer for its next event.
/// An idle hart has no time slice to end: it wakes only for the earliest
/// sleeper (tickless idle), or for an IPI when work arrives. On a host
/// with fewer cores than harts, ticking idle harts would take host time
/// from the busy ones.
pub fn program(hart: &Hart) {
    let mut next = if hart.idle.load(Ordering::Relaxed) { u64::MAX } else { hart.next_tick.load(Ordering::Relaxed) };
    if super::runqueue::runs_threads(hart) {
        if let Some(d) = earliest() {
            next = next.min(d);
        }
    }
    let ticks = if next == u64::MAX { u64::MAX } else { clock::ns_to_ticks(next) };
    sbi_rt::set_timer(ticks);
}

/// The timer interrupt: wake sleepers; returns true when the running
/// thread's time slice is over.
pub fn on_interrupt(hart: &Hart) -> bool {
    let now = clock::monotonic_ns();
    fire_expired();
    let tick_due = now >= hart.next_tick.load(Ordering::Relaxed);
    if tick_due {
        hart.next_tick.store(now + TICK_NS, Ordering::Relaxed);
    }
    program(hart);
    tick_due
}

/// Starts this hart's tick.
pub fn start(hart: &Hart) {
    hart.next_tick.store(clock::monotonic_ns() + TICK_NS, Ordering::Relaxed);
    program(hart);
}
