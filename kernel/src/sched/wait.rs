//! Waiting for a condition: a queue of blocked threads that a state change
//! wakes, with optional deadline and interruption by signals.

use super::scheduler::{current, finish_block, prepare_block, schedule, wake};
use super::thread::Thread;
use super::clock;
use alloc::sync::Arc;
use alloc::vec::Vec;
use spin::Mutex;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitError {
    TimedOut,
    /// A signal arrived for the thread.
    Interrupted,
}

pub struct WaitQueue {
    waiters: Mutex<Vec<Arc<Thread>>>,
}

impl WaitQueue {
    pub const fn new() -> Self {
        WaitQueue { waiters: Mutex::new(Vec::new()) }
    }

    /// Wakes every waiter; each re-checks its condition.
    pub fn wake_all(&self) {
        let waiters = core::mem::take(&mut *self.waiters.lock());
        for t in &waiters {
            wake(t);
        }
    }

    /// Blocks until `check` returns Some, the deadline (monotonic ns) passes
    /// or a signal is pending. `check` runs with the queue locked, so a state
    /// change followed by `wake_all` cannot slip between check and block.
    pub fn wait_until<R>(
        &self,
        deadline_ns: Option<u64>,
        mut check: impl FnMut() -> Option<R>,
    ) -> Result<R, WaitError> {
        let t = current();
        loop {
            let mut q = self.waiters.lock();
            if let Some(r) = check() {
                return Ok(r);
            }
            if deadline_ns.is_some_and(|d| clock::monotonic_ns() >= d) {
                return Err(WaitError::TimedOut);
            }
            if crate::signal::has_deliverable(&t) {
                return Err(WaitError::Interrupted);
            }
            let generation = prepare_block(&t, deadline_ns);
            q.push(t.clone());
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
