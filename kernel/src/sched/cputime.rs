//! CPU time: what each thread and the whole program have spent running
//! (user and kernel time together), for the CPU-time clocks
//! (CLOCK_THREAD_CPUTIME_ID, CLOCK_PROCESS_CPUTIME_ID), the CPU-clock
//! timers that drive Go's profiler (itimer.rs) and getrusage. A thread is
//! charged from the moment its CPU switches to it until it switches away,
//! so time blocked or asleep costs nothing, as on Linux.

use super::cpu::{self, Cpu};
use super::thread::Thread;
use core::sync::atomic::{AtomicU64, Ordering};

/// CPU time of every run that has ended, all threads together.
static FINISHED_NS: AtomicU64 = AtomicU64::new(0);
/// The most the process clock has reported: it never goes back, even when
/// a read races a switch (the run's time moving from its CPU to FINISHED_NS).
static REPORTED_NS: AtomicU64 = AtomicU64::new(0);

/// `t` starts running on `cpu` at monotonic time `now`.
pub(in crate::sched) fn started(cpu: &Cpu, t: &Thread, now: u64) {
    t.run_since.store(now, Ordering::Release);
    cpu.thread_since.store(now, Ordering::Release);
}

/// `t` stopped running on `cpu` at `now`, having started at `since`.
pub(in crate::sched) fn stopped(cpu: &Cpu, t: &Thread, since: u64, now: u64) {
    let ran = now.saturating_sub(since);
    t.cpu_ns.fetch_add(ran, Ordering::AcqRel);
    t.run_since.store(0, Ordering::Release);
    FINISHED_NS.fetch_add(ran, Ordering::AcqRel);
    cpu.thread_since.store(0, Ordering::Release);
}

/// The CPU time `t` has used, up to now if it is running.
pub fn thread_ns(t: &Thread) -> u64 {
    let since = t.run_since.load(Ordering::Acquire);
    let done = t.cpu_ns.load(Ordering::Acquire);
    if since == 0 {
        return done;
    }
    done + super::clock::monotonic_ns().saturating_sub(since)
}

/// The CPU time the whole program has used: every thread's, exited ones
/// included.
pub fn process_ns() -> u64 {
    let now = super::clock::monotonic_ns();
    let running: u64 = cpu::all()
        .iter()
        .map(|c| c.thread_since.load(Ordering::Acquire))
        .filter(|&s| s != 0)
        .map(|s| now.saturating_sub(s))
        .sum();
    let total = FINISHED_NS.load(Ordering::Acquire) + running;
    REPORTED_NS.fetch_max(total, Ordering::AcqRel).max(total)
}
