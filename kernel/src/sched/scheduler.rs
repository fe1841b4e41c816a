//! The per-hart scheduler loop and the operations a thread uses to give up
//! its hart: yield, block, exit. A thread switches to its hart's scheduler
//! context (xv6's `sched`/`scheduler` pair), which picks the next thread.

use super::hart::{this_hart, Hart};
use super::thread::{Thread, ThreadState};
use super::{clock, runqueue, timer};
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
            None => idle(hart),
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
    *t.state.lock() = ThreadState::Running;
    let last = t.last_hart.swap(hart.index(), Ordering::Relaxed);
    if last != hart.index() && last != usize::MAX {
        hart.stats.migrations.fetch_add(1, Ordering::Relaxed);
    }
    hart.stats.threads_run.fetch_add(1, Ordering::Relaxed);
    let woken = t.woken_at.swap(0, Ordering::Relaxed);
    if woken != 0 {
        crate::stats::record_wake_delay(clock::monotonic_ns().saturating_sub(woken));
    }
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

/// Waits for work, handling interrupts by polling (S-mode never takes them).
fn idle(hart: &Hart) {
    let start = clock::monotonic_ns();
    hart.period_start.store(start, Ordering::Relaxed);
    // Announce idleness before the last look at the queues: whoever queues
    // work after that look sees `idle` and sends an IPI, which wfi notices.
    hart.idle.store(true, Ordering::SeqCst);
    timer::program(hart); // tickless while idle
    loop {
        crate::trap::poll_interrupts(hart);
        if runqueue::has_work(hart) {
            break;
        }
        arch::wait_for_interrupt();
    }
    hart.idle.store(false, Ordering::SeqCst);
    timer::start(hart); // time slicing again
    hart.stats.idle_ns.fetch_add(clock::monotonic_ns() - start, Ordering::Relaxed);
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
    *t.state.lock() = ThreadState::Runnable;
    runqueue::requeue_here(t);
    schedule();
}

/// Marks the current thread blocked and, with a deadline, arms a timer that
/// wakes it. The caller then releases its wait lock and calls `schedule`.
/// Returns the wait's generation.
pub fn prepare_block(t: &Arc<Thread>, deadline_ns: Option<u64>) -> u64 {
    let generation = t.wait_generation.fetch_add(1, Ordering::AcqRel) + 1;
    *t.state.lock() = ThreadState::Blocked;
    if let Some(d) = deadline_ns {
        timer::add(d, t.clone(), generation);
    }
    generation
}

/// Ends a wait begun with `prepare_block` once the thread runs again: drops
/// its timer if the wait ended before the deadline.
pub fn finish_block(t: &Arc<Thread>, deadline_ns: Option<u64>, generation: u64) {
    if let Some(d) = deadline_ns {
        timer::cancel(d, t, generation);
    }
}

/// Makes a blocked thread runnable again. Waking a thread that is not
/// blocked does nothing (wakeups may race with timeouts).
pub fn wake(t: &Arc<Thread>) {
    let mut state = t.state.lock();
    if *state == ThreadState::Blocked {
        *state = ThreadState::Runnable;
        drop(state);
        t.woken_at.store(clock::monotonic_ns(), Ordering::Relaxed);
        runqueue::enqueue(t.clone());
    }
}

/// Wakes `t` only if it is still in the wait numbered `generation`.
pub fn wake_if_generation(t: &Arc<Thread>, generation: u64) {
    if t.generation() == generation {
        wake(t);
    }
}

/// Entered through `thread_trampoline` the first time a thread runs.
#[no_mangle]
extern "C" fn thread_first_run(_frame: *mut arch::TrapFrame) -> ! {
    let t = current();
    arch::restore_fp(t.fp());
    drop(t);
    crate::trap::return_to_user()
}
