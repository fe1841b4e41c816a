//! Each thread's CPU-use estimates (gometal_core::sched::threadprofile) kept up to
//! date by the scheduler, for the adaptive placement policy.
//!
//! Only the CPU running a thread updates its profile — at switch-in, at
//! switch-out and when it blocks — and the on_cpu hand-over (scheduler.rs)
//! orders one CPU's updates before the next CPU's, so the fields are plain
//! atomics written by one CPU at a time and need no lock. Other CPUs read
//! only `class` and `migrate_pm`, which are published after each update.

use super::clock;
use core::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use gometal_core::sched::threadprofile::{Class, Profile};

#[derive(Default)]
pub struct ProfileCell {
    burst_ns: AtomicU64,
    open_ns: AtomicU64,
    run_start: AtomicU64,
    interval_ns: AtomicU64,
    last_block: AtomicU64,
    migrate_pm: AtomicU64,
    /// The class as of the last update, for other CPUs.
    class: AtomicU8,
}

impl ProfileCell {
    pub const fn new() -> Self {
        ProfileCell {
            burst_ns: AtomicU64::new(0),
            open_ns: AtomicU64::new(0),
            run_start: AtomicU64::new(0),
            interval_ns: AtomicU64::new(0),
            last_block: AtomicU64::new(0),
            migrate_pm: AtomicU64::new(0),
            class: AtomicU8::new(Class::Unknown as u8),
        }
    }

    fn load(&self) -> Profile {
        let r = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Profile {
            burst_ns: r(&self.burst_ns),
            open_ns: r(&self.open_ns),
            run_start: r(&self.run_start),
            interval_ns: r(&self.interval_ns),
            last_block: r(&self.last_block),
            migrate_pm: r(&self.migrate_pm),
        }
    }

    /// Applies `change` to the profile (on the CPU running the thread) and
    /// publishes the new class.
    fn update(&self, change: impl FnOnce(&mut Profile, u64)) {
        let now = clock::monotonic_ns();
        let mut p = self.load();
        change(&mut p, now);
        let w = |a: &AtomicU64, v: u64| a.store(v, Ordering::Relaxed);
        w(&self.burst_ns, p.burst_ns);
        w(&self.open_ns, p.open_ns);
        w(&self.run_start, p.run_start);
        w(&self.interval_ns, p.interval_ns);
        w(&self.last_block, p.last_block);
        w(&self.migrate_pm, p.migrate_pm);
        self.class.store(p.class(now) as u8, Ordering::Relaxed);
    }

    /// The thread starts running (on another CPU than last time: `migrated`).
    pub fn started(&self, migrated: bool) {
        self.update(|p, now| p.start(now, migrated));
    }

    /// The thread stopped running (preempted, yielded, blocked or exited).
    pub fn stopped(&self) {
        self.update(|p, now| p.stop(now));
    }

    /// The running thread's class again (its burst has grown).
    pub fn refresh(&self) {
        self.update(|_, _| {});
    }

    /// The thread is about to block: its burst ends.
    pub fn blocking(&self) {
        self.update(|p, now| p.block(now));
    }

    pub fn class(&self) -> Class {
        Class::from_u8(self.class.load(Ordering::Relaxed))
    }

    pub fn migrate_pm(&self) -> u64 {
        self.migrate_pm.load(Ordering::Relaxed)
    }
}
