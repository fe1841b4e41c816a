//! Waiting for a condition: a queue of blocked threads that a state change
//! wakes, with optional deadline and interruption by signals (block.rs does
//! the blocking).
//!
//! A waiter registers itself on the queue *before* it checks its condition,
//! so a state change followed by `wake_all` after the check finds it and
//! ends its wait (at once if it has not blocked yet). A check may itself
//! wake the same queue (dropping the last reference to a pipe end notifies
//! pollers): the queue lock is not held during the check, so that wakeup
//! only makes the waiter look again.

use super::block::{begin_wait, block, block_uninterruptible, wake};
pub use super::block::{sleep_until, WaitError};
use crate::sync::{Lock, LockClass};
use super::thread::Thread;
use alloc::sync::Arc;
use alloc::vec::Vec;

pub struct WaitQueue {
    /// Each waiter with the number of the wait it is in.
    waiters: Lock<Vec<(Arc<Thread>, u64)>>,
}

impl WaitQueue {
    pub const fn new() -> Self {
        WaitQueue { waiters: Lock::new(LockClass::WaitQueue, Vec::new()) }
    }

    /// Wakes every waiter; each re-checks its condition.
    pub fn wake_all(&self) {
        let waiters = core::mem::take(&mut *self.waiters.lock());
        for (t, generation) in &waiters {
            wake(t, *generation);
        }
    }

    fn remove(&self, t: &Arc<Thread>) {
        self.waiters.lock().retain(|(w, _)| !Arc::ptr_eq(w, t));
    }

    /// Blocks until `check` returns Some, the deadline (monotonic ns) passes
    /// or a signal is pending.
    pub fn wait_until<R>(
        &self,
        deadline_ns: Option<u64>,
        mut check: impl FnMut() -> Option<R>,
    ) -> Result<R, WaitError> {
        loop {
            let (t, generation) = begin_wait();
            self.waiters.lock().push((t.clone(), generation));
            let outcome = match check() {
                Some(r) => Some(Ok(r)),
                None => block(&t, deadline_ns).err().map(Err),
            };
            self.remove(&t);
            if let Some(o) = outcome {
                return o;
            }
        }
    }

    /// Blocks until `check` returns Some; signals do not end the wait (a
    /// device round trip, a sleep lock: see block::block_uninterruptible).
    pub fn wait_uninterruptible<R>(&self, mut check: impl FnMut() -> Option<R>) -> R {
        loop {
            let (t, generation) = begin_wait();
            self.waiters.lock().push((t.clone(), generation));
            let got = check();
            if got.is_none() {
                block_uninterruptible(&t);
            }
            self.remove(&t);
            if let Some(r) = got {
                return r;
            }
        }
    }
}
