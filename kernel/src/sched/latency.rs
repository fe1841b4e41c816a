//! Latency histograms the scheduler and the drivers fill as they run
//! (wake-to-run delays, IPI and timer latency), which `-kernel-args stats`
//! prints at exit (stats.rs). Lock-free counters: recording costs a few
//! atomic adds on the paths being measured.

use core::sync::atomic::{AtomicU64, Ordering};

/// A latency histogram: counts by upper bound in µs, plus the maximum.
pub struct Histogram {
    counts: [AtomicU64; 7],
    max_ns: AtomicU64,
}

pub const BOUNDS_US: [u64; 7] = [16, 64, 256, 1024, 4096, 16384, u64::MAX];
const LABELS: [&str; 7] = ["<16us", "<64us", "<256us", "<1ms", "<4ms", "<16ms", ">=16ms"];

impl Histogram {
    pub const fn new() -> Self {
        Histogram { counts: [const { AtomicU64::new(0) }; 7], max_ns: AtomicU64::new(0) }
    }

    pub fn record(&self, ns: u64) {
        let us = ns / 1000;
        let i = BOUNDS_US.iter().position(|&b| us < b).unwrap_or(BOUNDS_US.len() - 1);
        self.counts[i].fetch_add(1, Ordering::Relaxed);
        self.max_ns.fetch_max(ns, Ordering::Relaxed);
    }

    /// The counts and the maximum in µs.
    pub fn snapshot(&self) -> ([u64; 7], u64) {
        (self.counts.each_ref().map(|c| c.load(Ordering::Relaxed)), self.max_ns.load(Ordering::Relaxed) / 1000)
    }

    pub fn report(&self, what: &str) {
        let counts: alloc::vec::Vec<u64> = self.counts.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        if counts.iter().sum::<u64>() == 0 {
            return;
        }
        let parts: alloc::vec::Vec<alloc::string::String> =
            LABELS.iter().zip(&counts).map(|(l, c)| alloc::format!("{l} {c}")).collect();
        crate::println!("gometal: {what}: {}; max {} us", parts.join(", "), self.max_ns.load(Ordering::Relaxed) / 1000);
    }
}

/// Wake-to-run delays (a wakeup making a thread runnable → a CPU switching
/// to it), split by whether some CPU was idle when the thread was queued
/// (it should run at once) or every CPU was busy (it queued behind one).
pub static WAKE_WITH_IDLE_CPU: Histogram = Histogram::new();
pub static WAKE_ALL_BUSY: Histogram = Histogram::new();
/// The stages of a wakeup that went to an idle CPU: IPI sent → the target
/// CPU leaves `wfi`; leaves `wfi` → switches to the thread.
pub static IPI_TO_WAKE: Histogram = Histogram::new();
pub static IDLE_EXIT_TO_RUN: Histogram = Histogram::new();
/// Timer expiry: deadline → the sleeper made runnable (interrupt latency).
pub static TIMER_LATE: Histogram = Histogram::new();

/// Hand-offs (place.rs): a woken thread whose CPU napped, queued on the
/// waker's CPU instead. Which CPU ran it, how long it waited, and how
/// often the waker's CPU preempted its own thread for it.
static HANDOFF_BY_WAKER_CPU: AtomicU64 = AtomicU64::new(0);
static HANDOFF_BY_OTHER_CPU: AtomicU64 = AtomicU64::new(0);
static HANDOFF_PREEMPTS: AtomicU64 = AtomicU64::new(0);
pub static HANDOFF_DELAY: Histogram = Histogram::new();

pub fn record_handoff(by_waker_cpu: bool, delay_ns: u64) {
    let counter = if by_waker_cpu { &HANDOFF_BY_WAKER_CPU } else { &HANDOFF_BY_OTHER_CPU };
    counter.fetch_add(1, Ordering::Relaxed);
    HANDOFF_DELAY.record(delay_ns);
}

pub fn count_handoff_preempt() {
    HANDOFF_PREEMPTS.fetch_add(1, Ordering::Relaxed);
}

/// (run by the waker's CPU, by another CPU, preemptions of the waker).
pub fn handoffs() -> [u64; 3] {
    [&HANDOFF_BY_WAKER_CPU, &HANDOFF_BY_OTHER_CPU, &HANDOFF_PREEMPTS].map(|c| c.load(Ordering::Relaxed))
}

/// The slowest wakeup's stages (monotonic ns): made runnable, IPI sent to
/// the idle CPU that ran it (0: none — it was polling or busy), that CPU
/// awake, the thread running.
static SLOWEST: crate::sync::Lock<[u64; 4]> = crate::sync::Lock::new(crate::sync::LockClass::LatencyRecord, [0; 4]);

/// The slowest wakeup recorded so far (all zero: none).
pub fn slowest() -> [u64; 4] {
    *SLOWEST.lock()
}

pub fn record_slowest(woken: u64, kicked: u64, awake: u64, running: u64) {
    let mut s = SLOWEST.lock();
    if running - woken > s[3] - s[0] {
        *s = [woken, kicked, awake, running];
    }
}

