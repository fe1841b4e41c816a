//! Where ready threads wait: one FIFO per CPU. place.rs decides which
//! queue a new or woken thread joins; a preempted thread goes back to its
//! own CPU's queue; a CPU with an empty queue steals the oldest thread of
//! the longest one before it idles.

use super::cpu::{Cpu, CpuState};
use crate::sync::{Lock, LockClass};
use super::thread::Thread;
use crate::param::MAX_CPUS;
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use core::sync::atomic::{AtomicUsize, Ordering};

struct RunQueue {
    threads: Lock<VecDeque<Arc<Thread>>>,
    /// Length of `threads`, readable without the lock (placement, idle).
    len: AtomicUsize,
}

impl RunQueue {
    const fn new() -> Self {
        RunQueue { threads: Lock::new(LockClass::RunQueue, VecDeque::new()), len: AtomicUsize::new(0) }
    }
    fn push(&self, t: Arc<Thread>) {
        let mut q = self.threads.lock();
        q.push_back(t);
        self.len.store(q.len(), Ordering::SeqCst);
    }
    fn pop(&self) -> Option<Arc<Thread>> {
        let mut q = self.threads.lock();
        let t = q.pop_front();
        self.len.store(q.len(), Ordering::SeqCst);
        t
    }
}

static QUEUES: [RunQueue; MAX_CPUS] = [const { RunQueue::new() }; MAX_CPUS];

/// Every online CPU runs program threads.
pub fn runs_threads(cpu: &Cpu) -> bool {
    cpu.state() == CpuState::Online
}

/// Threads waiting in CPU `index`'s queue.
pub fn len(index: usize) -> usize {
    QUEUES[index].len.load(Ordering::SeqCst)
}

/// Appends `t` to CPU `index`'s queue (the caller wakes the CPU).
pub(super) fn push(index: usize, t: Arc<Thread>) {
    QUEUES[index].push(t);
}

/// The next thread for `Cpu`: its own queue first, else one stolen from
/// the CPU with the longest queue.
pub fn dequeue(cpu: &Cpu) -> Option<Arc<Thread>> {
    if !runs_threads(cpu) {
        return None;
    }
    let me = cpu.index();
    if let Some(t) = QUEUES[me].pop() {
        return Some(t);
    }
    let victim = (0..MAX_CPUS)
        .filter(|&i| i != me)
        .max_by_key(|&i| QUEUES[i].len.load(Ordering::Relaxed))?;
    let t = QUEUES[victim].pop()?;
    cpu.stats.steals.fetch_add(1, Ordering::Relaxed);
    Some(t)
}

/// Whether `Cpu` has a thread to run (its own, or one it could steal).
pub fn has_work(cpu: &Cpu) -> bool {
    runs_threads(cpu) && QUEUES.iter().any(|q| q.len.load(Ordering::SeqCst) > 0)
}

/// Whether threads wait on this CPU's own queue (time slicing yields only then).
pub fn has_local_work(cpu: &Cpu) -> bool {
    QUEUES[cpu.index()].len.load(Ordering::Relaxed) > 0
}
