//! A lock its holder may keep while it sleeps: across a device round trip
//! (a 9P request) or anything else that blocks. A spin lock must never be
//! held so (block.rs checks that in debug builds): another thread on the
//! same CPU would spin on it for ever, since the kernel is not preempted.
//!
//! Built from the two primitives there are, without unsafe code: the value
//! sits in a spin lock (class SleepLock, held only to take it out or put it
//! back), and a thread that finds it taken waits on the lock's wait queue
//! until the holder puts it back and wakes it. The guard owns the value
//! meanwhile. Waiting is not cut short by signals (as Linux's mutex_lock).
//!
//! Sleep locks are taken before any spin lock, never under one; among
//! themselves, in the order written in sync/lockorder.rs.

use super::wait::WaitQueue;
use crate::sync::{Lock, LockClass};
use core::ops::{Deref, DerefMut};

pub struct SleepLock<T> {
    value: Lock<Option<T>>,
    waiters: WaitQueue,
}

impl<T> SleepLock<T> {
    pub const fn new(value: T) -> Self {
        SleepLock { value: Lock::new(LockClass::SleepLock, Some(value)), waiters: WaitQueue::new() }
    }

    /// Takes the lock, sleeping while another thread holds it.
    pub fn lock(&self) -> SleepGuard<'_, T> {
        let free = self.value.lock().take(); // not held: no wait queue traffic
        let value = match free {
            Some(v) => v,
            None => self.waiters.wait_uninterruptible(|| self.value.lock().take()),
        };
        SleepGuard { lock: self, value: Some(value) }
    }
}

impl<T: Default> Default for SleepLock<T> {
    fn default() -> Self {
        SleepLock::new(T::default())
    }
}

pub struct SleepGuard<'a, T> {
    lock: &'a SleepLock<T>,
    value: Option<T>,
}

impl<T> Deref for SleepGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value.as_ref().expect("held")
    }
}

impl<T> DerefMut for SleepGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value.as_mut().expect("held")
    }
}

impl<T> Drop for SleepGuard<'_, T> {
    fn drop(&mut self) {
        *self.lock.value.lock() = self.value.take();
        self.lock.waiters.wake_all();
    }
}
