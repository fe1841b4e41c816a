//! Futex wait queues: who is waiting on which user address. Go's runtime
//! uses futexes to park and wake its threads (lock_futex.go), so wakeups
//! must go to the oldest waiter first and none may be lost. The table only
//! keeps the queues; comparing the futex word atomically with enqueueing and
//! blocking the thread are the kernel's job, done under the lock that
//! guards this table.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;

/// Waiters of type `T` (thread ids, typically) keyed by user address.
#[derive(Debug)]
pub struct FutexTable<T> {
    queues: BTreeMap<u64, VecDeque<T>>,
}

impl<T> Default for FutexTable<T> {
    fn default() -> Self {
        FutexTable {
            queues: BTreeMap::new(),
        }
    }
}

impl<T: PartialEq> FutexTable<T> {
    pub const fn new() -> Self {
        FutexTable { queues: BTreeMap::new() }
    }

    /// Queues `waiter` behind any earlier waiters on `addr`.
    pub fn wait(&mut self, addr: u64, waiter: T) {
        self.queues.entry(addr).or_default().push_back(waiter);
    }

    /// Removes and returns up to `n` waiters on `addr`, oldest first.
    pub fn wake(&mut self, addr: u64, n: usize) -> Vec<T> {
        let Some(queue) = self.queues.get_mut(&addr) else {
            return Vec::new();
        };
        let take = n.min(queue.len());
        let woken: Vec<T> = queue.drain(..take).collect();
        if queue.is_empty() {
            self.queues.remove(&addr);
        }
        woken
    }

    /// Removes the first waiter on `addr` matching `pred` (a wait that timed
    /// out or was interrupted). False if it was already woken.
    pub fn remove(&mut self, addr: u64, pred: impl Fn(&T) -> bool) -> bool {
        let Some(queue) = self.queues.get_mut(&addr) else {
            return false;
        };
        let Some(pos) = queue.iter().position(pred) else {
            return false;
        };
        queue.remove(pos);
        if queue.is_empty() {
            self.queues.remove(&addr);
        }
        true
    }

    /// Whether a waiter on `addr` matches `pred` (still waiting: no wake
    /// took it).
    pub fn contains(&self, addr: u64, pred: impl Fn(&T) -> bool) -> bool {
        self.queues.get(&addr).is_some_and(|q| q.iter().any(pred))
    }

    /// Number of waiters on `addr`.
    pub fn waiters(&self, addr: u64) -> usize {
        self.queues.get(&addr).map_or(0, |q| q.len())
    }

    /// True if nobody waits anywhere.
    pub fn is_empty(&self) -> bool {
        self.queues.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wakes_in_fifo_order() {
        let mut t = FutexTable::new();
        for tid in 1..=5u32 {
            t.wait(0x1000, tid);
        }
        t.wait(0x2000, 9);
        assert_eq!(t.wake(0x1000, 1), vec![1]);
        assert_eq!(t.wake(0x1000, 2), vec![2, 3]);
        assert_eq!(t.waiters(0x1000), 2);
        assert_eq!(t.wake(0x1000, usize::MAX), vec![4, 5]);
        assert_eq!(t.waiters(0x1000), 0);
        assert_eq!(t.wake(0x2000, 0), Vec::<u32>::new());
        assert_eq!(t.wake(0x2000, 1), vec![9]);
        assert!(t.is_empty());
    }

    #[test]
    fn contains_until_woken() {
        let mut t = FutexTable::new();
        t.wait(0x10, 7u32);
        assert!(t.contains(0x10, |&w| w == 7));
        assert!(!t.contains(0x10, |&w| w == 8));
        assert!(!t.contains(0x20, |&w| w == 7));
        assert_eq!(t.wake(0x10, 1), vec![7]);
        assert!(!t.contains(0x10, |&w| w == 7));
    }

    #[test]
    fn wake_with_nobody_waiting() {
        let mut t: FutexTable<u32> = FutexTable::new();
        assert!(t.wake(0x1000, 1).is_empty());
        assert!(t.is_empty());
    }

    #[test]
    fn remove_cancels_one_waiter() {
        let mut t = FutexTable::new();
        t.wait(0x1000, 1u32);
        t.wait(0x1000, 2);
        t.wait(0x1000, 3);
        assert!(t.remove(0x1000, |&w| w == 2));
        assert!(!t.remove(0x1000, |&w| w == 2));
        assert!(!t.remove(0x3000, |&w| w == 1));
        assert_eq!(t.wake(0x1000, 10), vec![1, 3]);
        t.wait(0x4000, 7);
        assert!(t.remove(0x4000, |&w| w == 7));
        assert!(t.is_empty());
    }
}
