//! The per-CPU scheduler loop and the operations a thread uses to give up
//! its CPU: yield, block (block.rs), exit. A thread switches to its CPU's
//! scheduler context (xv6's `sched`/`scheduler` pair), which picks the next
//! thread.

use super::cpu::{this_cpu, Cpu};
use super::thread::{RunState, Thread};
use super::{clock, cputime, idle, place, runqueue};
use crate::arch;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use gometal_core::sched::threadprofile::Class;

/// The thread running on this CPU.
pub fn current() -> Arc<Thread> {
    this_cpu().current().expect("no current thread").clone()
}

/// The scheduler loop of one CPU: run ready threads, idle when none.
pub fn run(cpu: &'static Cpu) -> ! {
    loop {
        match runqueue::dequeue(cpu) {
            Some(t) => run_thread(cpu, t),
            None => idle::idle(cpu),
        }
    }
}

fn run_thread(cpu: &Cpu, t: Arc<Thread>) {
    // The CPU that ran it last may still be switching away from it.
    while t.on_cpu.load(Ordering::Acquire) {
        crate::sched::smp::serve_flush(cpu);
        core::hint::spin_loop();
    }
    t.on_cpu.store(true, Ordering::Relaxed);
    t.state.lock().run = RunState::Running;
    // Whatever asked for a switch on this CPU is answered by this one.
    cpu.need_resched.store(false, Ordering::Relaxed);
    let last = t.last_cpu.swap(cpu.index(), Ordering::Relaxed);
    let migrated = last != cpu.index() && last != usize::MAX;
    if migrated {
        cpu.stats.migrations.fetch_add(1, Ordering::Relaxed);
    }
    cpu.stats.threads_run.fetch_add(1, Ordering::Relaxed);
    record_wake_delay(cpu, &t);
    t.profile.started(migrated);
    cpu.running_long.store(t.profile.class() == Class::Long, Ordering::Relaxed);
    let ctx = t.context_ptr();
    cpu.running.store(true, Ordering::Relaxed);
    let start = clock::monotonic_ns();
    cputime::started(cpu, &t, start);
    cpu.set_current(Some(t));
    cpu.period_start.store(start, Ordering::Relaxed);
    // SAFETY: both contexts live in structures that outlive the switch: the
    // CPU's is static, the thread's is kept alive by `current`.
    unsafe { arch::switch(cpu.scheduler_context(), ctx) };
    let end = clock::monotonic_ns();
    cpu.stats.busy_ns.fetch_add(end - start, Ordering::Relaxed);
    cpu.stats.switches.fetch_add(1, Ordering::Relaxed);
    let t = cpu.set_current(None).expect("thread vanished");
    t.check_stack();
    cputime::stopped(cpu, &t, start, end);
    let switches = if t.state.lock().run == RunState::Blocked { &t.voluntary_switches } else { &t.involuntary_switches };
    switches.fetch_add(1, Ordering::Relaxed);
    t.profile.stopped();
    // A hand-off's deadline was for the thread that just stopped: whatever
    // waits here runs next anyway.
    cpu.handoff_at.store(0, Ordering::Relaxed);
    cpu.running.store(false, Ordering::Relaxed);
    cpu.running_long.store(false, Ordering::Relaxed);
    t.on_cpu.store(false, Ordering::Release);
    // An exited thread's last reference usually dies here, with its stack,
    // now that nothing runs on that stack any more.
}

/// The wake-to-run statistics: how long since a wakeup made `t` runnable.
fn record_wake_delay(cpu: &Cpu, t: &Thread) {
    let woken = t.woken_at.swap(0, Ordering::Relaxed);
    if woken == 0 {
        return;
    }
    let now = clock::monotonic_ns();
    let handed_to = t.handed_to.swap(usize::MAX, Ordering::Relaxed);
    if handed_to != usize::MAX {
        super::latency::record_handoff(handed_to == cpu.index(), now.saturating_sub(woken));
    }
    if t.woken_with_idle.load(Ordering::Relaxed) {
        super::latency::WAKE_WITH_IDLE_CPU.record(now.saturating_sub(woken));
    } else {
        super::latency::WAKE_ALL_BUSY.record(now.saturating_sub(woken));
    }
    let awake = cpu.awake_at.swap(0, Ordering::Relaxed);
    let kicked = cpu.kick_answered.swap(0, Ordering::Relaxed);
    // Only stamps that belong to this wakeup (an IPI sent after it): a CPU
    // kicked for a thread that another CPU ran meanwhile (a hand-off) runs
    // its next thread much later, for another reason.
    let (kicked, awake) = if kicked >= woken { (kicked, awake) } else { (0, 0) };
    if awake != 0 {
        super::latency::IDLE_EXIT_TO_RUN.record(now.saturating_sub(awake));
    }
    super::latency::record_slowest(woken, kicked, awake, now);
}

/// Switches from the current thread to this CPU's scheduler. The caller has
/// already decided the thread's fate (queued again, blocked, exited).
/// Returns when the thread is resumed, possibly on another CPU.
pub fn schedule() {
    let cpu = this_cpu();
    let t = cpu.current().expect("schedule without a thread");
    arch::save_fp(t.fp());
    let ctx = t.context_ptr();
    // SAFETY: the thread's context outlives the switch (the CPU's `current`
    // holds a reference until the scheduler loop has switched back).
    unsafe { arch::switch(ctx, cpu.scheduler_context()) };
    // Possibly another CPU now: look it up again.
    arch::restore_fp(this_cpu().current().expect("resumed without a thread").fp());
}

/// Gives the CPU to another ready thread, if any (the current thread
/// waits at the back of this CPU's queue).
pub fn yield_now() {
    let t = current();
    t.state.lock().run = RunState::Runnable;
    place::requeue_here(t);
    schedule();
}

