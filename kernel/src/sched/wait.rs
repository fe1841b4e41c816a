//! Waiting for a condition: a queue of blocked threads that a state change
//! wakes, with optional deadline and interruption by signals.
//!
//! A waiter runs its check with the queue locked, so a state change followed
//! by `wake_all` cannot slip between check and block. A check may itself
//! cause a wakeup of the same queue (dropping the last reference to a pipe
//! end notifies pollers); `wake_all` on the hart that holds the lock then
//! only marks the queue, and the waiter re-checks instead of blocking.

use super::hart::this_hart;
use super::scheduler::{current, finish_block, prepare_block, schedule, wake};
use super::thread::Thread;
use super::clock;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use spin::Mutex;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitError {
    TimedOut,
    /// A signal arrived for the thread.
    Interrupted,
}

pub struct WaitQueue {
    waiters: Mutex<Vec<Arc<Thread>>>,
    /// 1 + index of the hart holding `waiters` during a check, else 0.
    owner: AtomicUsize,
    /// A wakeup arrived from inside a check on the owning hart.
    pending: AtomicBool,
}

const NO_OWNER: usize = 0;

fn me() -> usize {
    this_hart().index() + 1
}

impl WaitQueue {
    pub const fn new() -> Self {
        WaitQueue { waiters: Mutex::new(Vec::new()), owner: AtomicUsize::new(NO_OWNER), pending: AtomicBool::new(false) }
    }

    /// Wakes every waiter; each re-checks its condition.
    pub fn wake_all(&self) {
        if self.owner.load(Ordering::Acquire) == me() {
            // Called from within our own check: the waiter (this very call
            // chain) looks at `pending` before it blocks.
            self.pending.store(true, Ordering::Release);
            return;
        }
        let waiters = core::mem::take(&mut *self.waiters.lock());
        for t in &waiters {
            wake(t);
        }
    }

    /// Blocks until `check` returns Some, the deadline (monotonic ns) passes
    /// or a signal is pending.
    pub fn wait_until<R>(
        &self,
        deadline_ns: Option<u64>,
        mut check: impl FnMut() -> Option<R>,
    ) -> Result<R, WaitError> {
        let t = current();
        loop {
            let mut q = self.waiters.lock();
            self.owner.store(me(), Ordering::Release);
            let outcome = if let Some(r) = check() {
                Some(Ok(r))
            } else if deadline_ns.is_some_and(|d| clock::monotonic_ns() >= d) {
                Some(Err(WaitError::TimedOut))
            } else if crate::signal::has_deliverable(&t) {
                Some(Err(WaitError::Interrupted))
            } else {
                None
            };
            if outcome.is_some() || self.pending.swap(false, Ordering::AcqRel) {
                self.owner.store(NO_OWNER, Ordering::Release);
                drop(q);
                match outcome {
                    Some(o) => return o,
                    None => continue, // woken from inside the check: look again
                }
            }
            let generation = prepare_block(&t, deadline_ns);
            q.push(t.clone());
            self.owner.store(NO_OWNER, Ordering::Release);
            drop(q);
            schedule();
            finish_block(&t, deadline_ns, generation);
            self.waiters.lock().retain(|w| !Arc::ptr_eq(w, &t));
        }
    }
}

/// Sleeps until the monotonic deadline; Err(Interrupted) if a signal came.
pub fn sleep_until(deadline_ns: u64) -> Result<(), WaitError> {
    let t = current();
    while clock::monotonic_ns() < deadline_ns {
        if crate::signal::has_deliverable(&t) {
            return Err(WaitError::Interrupted);
        }
        let generation = prepare_block(&t, Some(deadline_ns));
        schedule();
        finish_block(&t, Some(deadline_ns), generation);
    }
    Ok(())
}
