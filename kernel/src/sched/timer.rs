//! Timed wakeups and the scheduler tick. Sleeping threads wait in a map
//! ordered by deadline; a busy CPU's timer is programmed (arch::set_timer)
//! for the earlier of its next tick and the earliest deadline; an idle CPU
//! has no tick (idle.rs decides when it naps and for how long). A thread has
//! at most one entry (it waits for one thing at a time), and removes it when
//! it is woken early, so the map never grows beyond the number of threads.
//! The kernel's own deadlines (event.rs) count as sleepers here.

use super::block::wake;
use super::clock;
use super::cpu::Cpu;
use crate::sync::{Lock, LockClass};
use super::thread::Thread;
use crate::param::TICK_NS;
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use core::sync::atomic::{AtomicU64, Ordering};

/// (deadline in monotonic ns, tid, wait generation).
type Key = (u64, u32, u64);

static SLEEPERS: Lock<BTreeMap<Key, Arc<Thread>>> = Lock::new(LockClass::Sleepers, BTreeMap::new());
/// The earliest deadline in SLEEPERS (u64::MAX: none), readable without the
/// lock by polling idle CPUs and by `program`.
static EARLIEST: AtomicU64 = AtomicU64::new(u64::MAX);

fn update_earliest(map: &BTreeMap<Key, Arc<Thread>>) {
    EARLIEST.store(map.keys().next().map_or(u64::MAX, |k| k.0), Ordering::SeqCst);
}

/// Wakes `thread` at `deadline_ns` if it is still in wait `generation`.
pub fn add(deadline_ns: u64, thread: Arc<Thread>, generation: u64) {
    {
        let mut map = SLEEPERS.lock();
        map.insert((deadline_ns, thread.tid, generation), thread);
        update_earliest(&map);
    }
    // This CPU's timer may be set for a later tick: pull it in.
    program(super::cpu::this_cpu());
}

/// Forgets a wakeup that is no longer needed (the wait ended early).
pub fn cancel(deadline_ns: u64, thread: &Thread, generation: u64) {
    let mut map = SLEEPERS.lock();
    if map.remove(&(deadline_ns, thread.tid, generation)).is_some() {
        update_earliest(&map);
    }
}

/// The earliest deadline: a sleeper's or a kernel timer event's
/// (event.rs); u64::MAX: none.
pub fn earliest() -> u64 {
    EARLIEST.load(Ordering::SeqCst).min(super::event::earliest())
}

/// Wakes every thread whose deadline has passed and runs the kernel's
/// timer events that are due.
pub fn fire_expired() {
    let now = clock::monotonic_ns();
    if earliest() > now {
        return;
    }
    loop {
        let due = {
            let mut map = SLEEPERS.lock();
            let due = match map.first_key_value() {
                Some((k, _)) if k.0 <= now => map.pop_first(),
                _ => None,
            };
            update_earliest(&map);
            due
        };
        match due {
            Some(((deadline, _, generation), t)) => {
                crate::sched::latency::TIMER_LATE.record(clock::monotonic_ns().saturating_sub(deadline));
                wake(&t, generation)
            }
            None => break,
        }
    }
    super::event::fire_expired(now);
}

/// Programs this CPU's timer: a busy CPU for its next tick or the
/// earliest deadline; an idle one only for the deadline (tickless idle:
/// on a host with fewer cores than CPUs, ticking idle CPUs would take
/// host time from the busy ones).
pub fn program(cpu: &Cpu) {
    let mut next = if cpu.idle.load(Ordering::Relaxed) { u64::MAX } else { cpu.next_tick.load(Ordering::Relaxed) };
    let handoff = cpu.handoff_at.load(Ordering::Relaxed);
    if handoff != 0 {
        next = next.min(handoff);
    }
    if super::runqueue::runs_threads(cpu) {
        next = next.min(earliest());
    }
    program_at(next);
}

/// Sets this CPU's timer for monotonic time `ns` (u64::MAX: never).
pub fn program_at(ns: u64) {
    let ticks = if ns == u64::MAX { u64::MAX } else { clock::ns_to_ticks(ns) };
    crate::arch::set_timer(ticks);
}

/// The timer interrupt: wake sleepers; returns true when the running
/// thread's time slice is over, or a thread handed to this CPU has waited
/// out its grace period (place.rs): either way it should yield if a thread
/// waits here.
pub fn on_interrupt(cpu: &Cpu) -> bool {
    let now = clock::monotonic_ns();
    fire_expired();
    let tick_due = now >= cpu.next_tick.load(Ordering::Relaxed);
    if tick_due {
        cpu.next_tick.store(now + TICK_NS, Ordering::Relaxed);
        super::place::refresh_running(cpu);
        super::loadavg::sample(now);
    }
    let handoff = cpu.handoff_at.load(Ordering::Relaxed);
    let handoff_due = handoff != 0 && now >= handoff;
    if handoff_due {
        cpu.handoff_at.store(0, Ordering::Relaxed);
        if super::runqueue::has_local_work(cpu) {
            super::latency::count_handoff_preempt();
        }
    }
    program(cpu);
    tick_due || handoff_due
}

/// Starts this CPU's tick.
pub fn start(cpu: &Cpu) {
    cpu.next_tick.store(clock::monotonic_ns() + TICK_NS, Ordering::Relaxed);
    program(cpu);
}
