//! Kernel timer events: a deadline at which the kernel itself, not a
//! thread, has work — smoltcp's retransmission, keep-alive and close timers
//! (net/nic). An event is one atomic deadline and a function; it joins the
//! sleepers' deadlines in `timer::earliest`, so a busy CPU's timer and an
//! idle CPU's nap are programmed for it like for any sleeper, and
//! `timer::fire_expired` runs it on whichever CPU notices first. Arming
//! takes no lock, so code holding any lock may arm; the function runs with
//! no lock held (from the timer interrupt or the idle loop).

use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};

pub struct TimerEvent {
    /// Monotonic ns; u64::MAX: not armed.
    at: AtomicU64,
    action: fn(),
    registered: AtomicBool,
}

/// Room for every event the kernel has (one per subsystem that needs one).
const SLOTS: usize = 6;
static EVENTS: [AtomicPtr<TimerEvent>; SLOTS] = [const { AtomicPtr::new(core::ptr::null_mut()) }; SLOTS];

impl TimerEvent {
    pub const fn new(action: fn()) -> Self {
        TimerEvent { at: AtomicU64::new(u64::MAX), action, registered: AtomicBool::new(false) }
    }

    /// Runs the action once at monotonic time `ns` (u64::MAX: never),
    /// replacing the deadline it had.
    pub fn arm(&'static self, ns: u64) {
        self.register();
        let before = self.at.swap(ns, Ordering::SeqCst);
        if ns < before {
            // This CPU's timer may be set for later: pull it in.
            super::timer::program(super::cpu::this_cpu());
        }
    }
}

impl TimerEvent {
    fn register(&'static self) {
        if !self.registered.swap(true, Ordering::AcqRel) {
            let me = self as *const TimerEvent as *mut TimerEvent;
            let free = EVENTS.iter().find(|e| e.compare_exchange(core::ptr::null_mut(), me, Ordering::AcqRel, Ordering::Acquire).is_ok());
            debug_assert!(free.is_some(), "more timer events than SLOTS");
        }
    }
}

fn registered() -> impl Iterator<Item = &'static TimerEvent> {
    EVENTS.iter().filter_map(|e| {
        // SAFETY: slots only ever hold pointers to 'static events (arm).
        unsafe { e.load(Ordering::Acquire).as_ref() }
    })
}

/// The earliest armed event's deadline (u64::MAX: none).
pub fn earliest() -> u64 {
    registered().map(|e| e.at.load(Ordering::SeqCst)).min().unwrap_or(u64::MAX)
}

/// Runs every event whose deadline has passed (each once per arming).
pub fn fire_expired(now: u64) {
    for e in registered() {
        let at = e.at.load(Ordering::SeqCst);
        if at <= now && e.at.compare_exchange(at, u64::MAX, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
            (e.action)();
        }
    }
}
