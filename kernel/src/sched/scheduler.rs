//! The per-hart scheduler loop and the operations a thread uses to give up
//! its hart: yield, block (block.rs), exit. A thread switches to its hart's
//! scheduler context (xv6's `sched`/`scheduler` pair), which picks the next
//! thread.

use super::hart::{this_hart, Hart};
use super::thread::{RunState, Thread};
use super::{clock, idle, place, runqueue};
use crate::arch;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;

/// The thread running on this hart.
pub fn current() -> Arc<Thread> {
    this_hart().current().expect("no current thread").clone()
}

/// The scheduler loop of one hart: run ready threads, idle when none.
pub fn run(hart: &'static Hart) -> ! {
    loop {
        match runqueue::dequeue(hart) {
            Some(t) => run_thread(hart, t),
            None => idle::idle(hart),
        }
    }
}

fn run_thread(hart: &Hart, t: Arc<Thread>) {
    // The hart that ran it last may still be switching away from it.
    while t.on_cpu.load(Ordering::Acquire) {
        crate::smp::serve_flush(hart);
        core::hint::spin_loop();
    }
    t.on_cpu.store(true, Ordering::Relaxed);
    t.state.lock().run = RunState::Running;
    // Whatever asked for a switch on this hart is answered by this one.
    hart.need_resched.store(false, Ordering::Relaxed);
    let last = t.last_hart.swap(hart.index(), Ordering::Relaxed);
    if last != hart.index() && last != usize::MAX {
        hart.stats.migrations.fetch_add(1, Ordering::Relaxed);
    }
    hart.stats.threads_run.fetch_add(1, Ordering::Relaxed);
    record_wake_delay(hart, &t);
    let ctx = t.context_ptr();
    hart.running.store(true, Ordering::Relaxed);
    hart.set_current(Some(t));
    let start = clock::monotonic_ns();
    hart.period_start.store(start, Ordering::Relaxed);
    // SAFETY: both contexts live in structures that outlive the switch: the
    // hart's is static, the thread's is kept alive by `current`.
    unsafe { arch::switch(hart.scheduler_context(), ctx) };
    hart.stats.busy_ns.fetch_add(clock::monotonic_ns() - start, Ordering::Relaxed);
    hart.stats.switches.fetch_add(1, Ordering::Relaxed);
    let t = hart.set_current(None).expect("thread vanished");
    hart.running.store(false, Ordering::Relaxed);
    t.on_cpu.store(false, Ordering::Release);
    // An exited thread's last reference usually dies here, with its stack,
    // now that nothing runs on that stack any more.
}

/// The wake-to-run statistics: how long since a wakeup made `t` runnable.
fn record_wake_delay(hart: &Hart, t: &Thread) {
    let woken = t.woken_at.swap(0, Ordering::Relaxed);
    if woken == 0 {
        return;
    }
    let now = clock::monotonic_ns();
    if t.woken_with_idle.load(Ordering::Relaxed) {
        crate::stats::WAKE_WITH_IDLE_HART.record(now.saturating_sub(woken));
    } else {
        crate::stats::WAKE_ALL_BUSY.record(now.saturating_sub(woken));
    }
    let awake = hart.awake_at.swap(0, Ordering::Relaxed);
    let kicked = hart.kick_answered.swap(0, Ordering::Relaxed);
    if awake != 0 {
        crate::stats::IDLE_EXIT_TO_RUN.record(now.saturating_sub(awake));
    }
    // Only stamps that belong to this wakeup (an IPI sent after it).
    let (kicked, awake) = if kicked >= woken { (kicked, awake) } else { (0, 0) };
    crate::stats::record_slowest(woken, kicked, awake, now);
}

/// Switches from the current thread to this hart's scheduler. The caller has
/// already decided the thread's fate (queued again, blocked, exited).
/// Returns when the thread is resumed, possibly on another hart.
pub fn schedule() {
    let hart = this_hart();
    let t = hart.current().expect("schedule without a thread");
    arch::save_fp(t.fp());
    let ctx = t.context_ptr();
    // SAFETY: the thread's context outlives the switch (the hart's `current`
    // holds a reference until the scheduler loop has switched back).
    unsafe { arch::switch(ctx, hart.scheduler_context()) };
    // Possibly another hart now: look it up again.
    arch::restore_fp(this_hart().current().expect("resumed without a thread").fp());
}

/// Gives the hart to another ready thread, if any (the current thread
/// waits at the back of this hart's queue).
pub fn yield_now() {
    let t = current();
    t.state.lock().run = RunState::Runnable;
    place::requeue_here(t);
    schedule();
}

/// Entered through `thread_trampoline` the first time a thread runs.
#[no_mangle]
extern "C" fn thread_first_run(_frame: *mut arch::TrapFrame) -> ! {
    let t = current();
    arch::restore_fp(t.fp());
    drop(t);
    crate::trap::return_to_user()
}
