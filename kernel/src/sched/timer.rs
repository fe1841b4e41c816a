//! Timed wakeups and the scheduler tick. Sleeping threads wait in a heap
//! ordered by deadline; each hart's timer is programmed (through the SBI) for
//! the earlier of its next tick and the earliest deadline.

use super::hart::Hart;
use super::scheduler::wake_if_generation;
use super::thread::Thread;
use super::clock;
use crate::param::TICK_NS;
use alloc::collections::BinaryHeap;
use alloc::sync::Arc;
use core::cmp::{Ordering as CmpOrdering, Reverse};
use core::sync::atomic::Ordering;
use spin::Mutex;

struct Sleeper {
    deadline_ns: u64,
    generation: u64,
    thread: Arc<Thread>,
}

impl PartialEq for Sleeper {
    fn eq(&self, o: &Self) -> bool {
        self.deadline_ns == o.deadline_ns
    }
}
impl Eq for Sleeper {}
impl PartialOrd for Sleeper {
    fn partial_cmp(&self, o: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(o))
    }
}
impl Ord for Sleeper {
    fn cmp(&self, o: &Self) -> CmpOrdering {
        self.deadline_ns.cmp(&o.deadline_ns)
    }
}

static SLEEPERS: Mutex<BinaryHeap<Reverse<Sleeper>>> = Mutex::new(BinaryHeap::new());

/// Wakes `thread` at `deadline_ns` if it is still in wait `generation`.
pub fn add(deadline_ns: u64, thread: Arc<Thread>, generation: u64) {
    SLEEPERS.lock().push(Reverse(Sleeper { deadline_ns, generation, thread }));
    // The boot hart's timer may be set for a later tick: pull it in.
    program(super::hart::this_hart());
}

fn earliest() -> Option<u64> {
    SLEEPERS.lock().peek().map(|s| s.0.deadline_ns)
}

/// Wakes every thread whose deadline has passed.
pub fn fire_expired() {
    let now = clock::monotonic_ns();
    loop {
        let due = {
            let mut heap = SLEEPERS.lock();
            match heap.peek() {
                Some(s) if s.0.deadline_ns <= now => heap.pop().map(|s| s.0),
                _ => None,
            }
        };
        match due {
            Some(s) => wake_if_generation(&s.thread, s.generation),
            None => break,
        }
    }
}

/// Programs this hart's timer for its next event.
pub fn program(hart: &Hart) {
    let mut next = hart.next_tick.load(Ordering::Relaxed);
    if super::runqueue::runs_threads(hart) {
        if let Some(d) = earliest() {
            next = next.min(d);
        }
    }
    sbi_rt::set_timer(clock::ns_to_ticks(next));
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
