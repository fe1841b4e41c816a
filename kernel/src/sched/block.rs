//! The one way a thread waits. Futex waits, wait queues (pipes, eventfd,
//! epoll, console input), sleeps — and the device and socket waits to come —
//! all go through `begin_wait` + `block` + `wake`:
//!
//! 1. `begin_wait` numbers a new wait (the thread's `generation`) and clears
//!    its early-wake flag. The caller then registers the thread where a
//!    waker will find it (futex table, wait queue) with that number, and
//!    checks its condition.
//! 2. `block` looks, under the thread's state lock, at the early-wake flag,
//!    pending signals and the deadline, and only then marks the thread
//!    Blocked and switches away. Because the check and the mark happen under
//!    the same lock that `wake` and `interrupt` take, a wakeup or a signal
//!    can never fall between them (the lost wakeup of a check-then-block).
//! 3. `wake(t, generation)` ends wait `generation` only: if the thread is
//!    Blocked in it, it becomes runnable (placed by place.rs); if it has not
//!    blocked yet, the early-wake flag makes its `block` return at once; a
//!    wakeup for an older wait (a late timer, a slow waker) is ignored.
//!
//! `block` returning Ok means "woken, look again": callers re-check their
//! condition and call `block` again, which reports TimedOut or Interrupted
//! once the deadline has passed or a signal is deliverable.

use super::clock;
use super::scheduler::{current, schedule};
use super::thread::{RunState, Thread};
use super::timer;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitError {
    TimedOut,
    /// A signal the thread does not block is pending.
    Interrupted,
}

/// Starts a new wait of the current thread; returns it and the wait's number,
/// which wakers must quote.
pub fn begin_wait() -> (Arc<Thread>, u64) {
    let t = current();
    let generation = {
        let mut s = t.state.lock();
        s.generation += 1;
        s.woken_early = false;
        s.generation
    };
    (t, generation)
}

/// Blocks the current thread `t` in its current wait until a wakeup, the
/// deadline (monotonic ns) or a signal. Ok: woken (look again).
pub fn block(t: &Arc<Thread>, deadline_ns: Option<u64>) -> Result<(), WaitError> {
    block_in(t, deadline_ns, true)
}

/// `block` that a signal does not end: for a wait whose end the thread
/// must see whatever happens (a device that owns the thread's buffers
/// until it replies). A signal still wakes the thread, which looks at its
/// condition and blocks again; the signal is delivered after the wait.
pub fn block_uninterruptible(t: &Arc<Thread>) {
    let _ = block_in(t, None, false);
}

fn block_in(t: &Arc<Thread>, deadline_ns: Option<u64>, interruptible: bool) -> Result<(), WaitError> {
    // A thread that sleeps with a spin lock held would leave its CPU
    // holding it: whoever runs there next and takes it spins for ever.
    crate::sync::held::assert_none_held("block");
    let generation = {
        let mut s = t.state.lock();
        if s.woken_early {
            s.woken_early = false;
            return Ok(());
        }
        // Under the state lock: a signal sent after this look finds the
        // thread Blocked and wakes it (signal.rs sets pending first).
        if interruptible && t.signals.lock().deliverable() != 0 {
            return Err(WaitError::Interrupted);
        }
        if deadline_ns.is_some_and(|d| clock::monotonic_ns() >= d) {
            return Err(WaitError::TimedOut);
        }
        s.run = RunState::Blocked;
        s.generation
    };
    // From here a waker may queue the thread on another CPU; that CPU
    // waits for `on_cpu` to clear before resuming it.
    t.profile.blocking();
    if let Some(d) = deadline_ns {
        timer::add(d, t.clone(), generation);
    }
    schedule();
    if let Some(d) = deadline_ns {
        timer::cancel(d, t, generation);
    }
    Ok(())
}

/// Ends wait `generation` of `t` (see the module comment).
pub fn wake(t: &Arc<Thread>, generation: u64) {
    let mut s = t.state.lock();
    if s.generation != generation {
        return;
    }
    match s.run {
        RunState::Blocked => {
            s.run = RunState::Runnable;
            drop(s);
            make_runnable(t);
        }
        RunState::Running | RunState::Runnable => s.woken_early = true,
        RunState::Exited => {}
    }
}

/// Interrupts whatever wait `t` is in (a signal arrived for it): a blocked
/// thread becomes runnable; one about to block sees the signal in `block`.
pub fn interrupt(t: &Arc<Thread>) {
    let mut s = t.state.lock();
    if s.run == RunState::Blocked {
        s.run = RunState::Runnable;
        drop(s);
        make_runnable(t);
    }
}

fn make_runnable(t: &Arc<Thread>) {
    t.woken_at.store(clock::monotonic_ns(), Ordering::Relaxed);
    super::place::wake_up(t.clone());
}

/// Sleeps until the monotonic deadline; Err(Interrupted) if a signal came.
pub fn sleep_until(deadline_ns: u64) -> Result<(), WaitError> {
    let (t, _) = begin_wait();
    loop {
        match block(&t, Some(deadline_ns)) {
            Ok(()) => continue, // the timer (or nothing): look at the clock again
            Err(WaitError::TimedOut) => return Ok(()),
            Err(e) => return Err(e),
        }
    }
}

/// The current thread ends: it is never resumed after its last `schedule`.
pub fn exit_current() -> ! {
    let t = current();
    t.state.lock().run = RunState::Exited;
    drop(t);
    schedule();
    unreachable!("an exited thread was resumed")
}
