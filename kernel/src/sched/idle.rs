//! What a CPU does with no thread to run: poll, then nap in `wfi`.
//!
//! Under QEMU a CPU napping in `wfi` is a host thread asleep; an IPI or a
//! timer must first get the host to run that thread again, which on a busy
//! host takes from tens of µs to several ms (docs/scheduling.md has the
//! measurements). Two things keep wakeups off that path:
//!
//! - **Halt polling** (as KVM and Linux's haltpoll do): an idle CPU first
//!   polls its queues for `poll_ns`, so a wakeup soon after it went idle
//!   needs no IPI and no host wakeup. The window adapts per CPU: it grows
//!   when a nap turned out short (polling a little longer would have caught
//!   the work) and shrinks when naps are long (polling would only burn host
//!   time that other CPUs could use).
//! - **Timer advance** (as KVM's lapic timer advance does): one idle CPU,
//!   the timer watcher, programs its timer `TIMER_ADVANCE_NS` before the
//!   earliest sleeper's deadline and polls the clock for the rest, so the
//!   host's lateness in waking it is absorbed before the deadline. Other idle
//!   CPUs nap until the deadline itself.
//!
//! S-mode never takes interrupts: pending ones are polled from `sip`.

use super::cpu::Cpu;
use super::{clock, runqueue, timer};
use crate::arch;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use spin::Once;

/// Longest halt-polling window (the `idlepoll=` kernel argument, in µs).
static POLL_MAX_NS: AtomicU64 = AtomicU64::new(200_000);
/// How early the timer watcher's timer fires before the deadline (also
/// set by `idlepoll=`; 0 turns both off).
static TIMER_ADVANCE_NS: AtomicU64 = AtomicU64::new(300_000);

/// Applies `idlepoll=US` (at boot).
pub fn configure(poll_us: u64) {
    POLL_MAX_NS.store(poll_us * 1000, Ordering::Relaxed);
    TIMER_ADVANCE_NS.store(poll_us * 1000 * 3 / 2, Ordering::Relaxed);
}

fn poll_max() -> u64 {
    POLL_MAX_NS.load(Ordering::Relaxed)
}

fn advance() -> u64 {
    TIMER_ADVANCE_NS.load(Ordering::Relaxed)
}

const NO_WATCHER: usize = usize::MAX;
/// Index of the idle CPU that polls for the earliest deadline.
static TIMER_WATCHER: AtomicUsize = AtomicUsize::new(NO_WATCHER);

/// What an idle CPU does besides watching its queue, registered at boot by
/// the layers above the scheduler (which it must not call by name): take
/// pending interrupts (trap.rs), and move what the threads left behind
/// (the NIC's deferred work, net/nic).
static INTERRUPT_POLLER: Once<fn(&Cpu)> = Once::new();
static IDLE_WORK: Once<fn()> = Once::new();

/// Registers how an idle CPU takes its pending interrupts.
pub fn set_interrupt_poller(f: fn(&Cpu)) {
    INTERRUPT_POLLER.call_once(|| f);
}

/// Registers work an idle CPU does each time it goes idle.
pub fn set_idle_work(f: fn()) {
    IDLE_WORK.call_once(|| f);
}

/// Waits for work. Returns when a thread may be queued for this CPU.
pub fn idle(cpu: &Cpu) {
    let start = clock::monotonic_ns();
    cpu.period_start.store(start, Ordering::Relaxed);
    // Announce idleness before the last look at the queues: whoever queues
    // work after that look sees `idle` (and `napping` before wfi).
    cpu.idle.store(true, Ordering::SeqCst);
    timer::program(cpu); // tickless while idle
    if let Some(work) = IDLE_WORK.get() {
        work(); // what the threads left behind (a close, say)
    }
    let poller = INTERRUPT_POLLER.get().copied();
    let poll_until = start + cpu.poll_ns.load(Ordering::Relaxed);
    let mut napped_ns = None;
    loop {
        if let Some(poll) = poller {
            poll(cpu);
        }
        timer::fire_expired();
        if runqueue::has_work(cpu) {
            break;
        }
        let now = clock::monotonic_ns();
        let watching = watch_timer(cpu, now);
        if now < poll_until || watching {
            core::hint::spin_loop();
            continue;
        }
        napped_ns = Some(nap(cpu, now).saturating_add(napped_ns.unwrap_or(0)));
    }
    if TIMER_WATCHER.load(Ordering::Relaxed) == cpu.index() {
        TIMER_WATCHER.store(NO_WATCHER, Ordering::SeqCst);
    }
    if let Some(ns) = napped_ns {
        adapt_poll(cpu, ns);
    }
    cpu.idle.store(false, Ordering::SeqCst);
    timer::start(cpu); // time slicing again
    cpu.stats.idle_ns.fetch_add(clock::monotonic_ns() - start, Ordering::Relaxed);
}

/// Whether this CPU should poll for an imminent deadline: it is (or now
/// becomes) the watcher and the earliest deadline is within the advance.
fn watch_timer(cpu: &Cpu, now: u64) -> bool {
    let me = cpu.index();
    if advance() == 0 || timer::earliest().saturating_sub(now) > advance() {
        // Nothing imminent: give up watching, so another CPU may.
        let _ = TIMER_WATCHER.compare_exchange(me, NO_WATCHER, Ordering::SeqCst, Ordering::SeqCst);
        return false;
    }
    match TIMER_WATCHER.compare_exchange(NO_WATCHER, me, Ordering::SeqCst, Ordering::SeqCst) {
        Ok(_) => true,
        Err(w) => w == me,
    }
}

/// Naps in `wfi` until an interrupt; returns how long it slept.
fn nap(cpu: &Cpu, now: u64) -> u64 {
    cpu.napping.store(true, Ordering::SeqCst);
    if runqueue::has_work(cpu) {
        cpu.napping.store(false, Ordering::SeqCst);
        return 0;
    }
    let deadline = timer::earliest();
    // Only one CPU wakes early for a deadline; the rest wake at it.
    let watcher_free = TIMER_WATCHER.load(Ordering::SeqCst) == NO_WATCHER;
    let wake_at = if watcher_free { deadline.saturating_sub(advance()) } else { deadline };
    timer::program_at(wake_at.max(now));
    arch::wait_for_interrupt();
    cpu.napping.store(false, Ordering::SeqCst);
    clock::monotonic_ns().saturating_sub(now)
}

/// KVM's halt-polling rule (gometal_core::sched::haltpoll, host-tested).
fn adapt_poll(cpu: &Cpu, napped_ns: u64) {
    let poll = cpu.poll_ns.load(Ordering::Relaxed);
    cpu.poll_ns.store(gometal_core::sched::haltpoll::next_window(poll, napped_ns, poll_max()), Ordering::Relaxed);
}
