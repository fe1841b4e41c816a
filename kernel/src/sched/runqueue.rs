//! Where ready threads wait: one FIFO per CPU. place.rs decides which
//! queue a new or woken thread joins; a preempted thread goes back to its
//! own CPU's queue; a CPU with an empty queue steals before it idles: under
//! the adaptive policy first a CPU-bound thread that shares its CPU with
//! another (so no two CPU-bound threads share a CPU while this one idles),
//! otherwise — and under every other policy — the oldest thread of the
//! longest queue.

use super::cpu::{Cpu, CpuState};
use crate::sync::{Lock, LockClass};
use super::thread::Thread;
use crate::param::MAX_CPUS;
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use core::sync::atomic::{AtomicUsize, Ordering};
use gometal_core::sched::placement::Policy;
use gometal_core::sched::threadprofile::Class;

struct RunQueue {
    threads: Lock<VecDeque<Arc<Thread>>>,
    /// Length of `threads`, readable without the lock (placement, idle).
    len: AtomicUsize,
    /// CPU-bound (Long) threads in `threads`, as classed when they joined.
    long: AtomicUsize,
}

impl RunQueue {
    const fn new() -> Self {
        RunQueue {
            threads: Lock::new(LockClass::RunQueue, VecDeque::new()),
            len: AtomicUsize::new(0),
            long: AtomicUsize::new(0),
        }
    }
    fn push(&self, t: Arc<Thread>) {
        let long = t.profile.class() == Class::Long;
        t.queued_long.store(long, Ordering::Relaxed);
        let mut q = self.threads.lock();
        q.push_back(t);
        self.len.store(q.len(), Ordering::SeqCst);
        if long {
            self.long.fetch_add(1, Ordering::Relaxed);
        }
    }
    /// Takes the first thread `want` accepts.
    fn take(&self, want: impl Fn(&Thread) -> bool) -> Option<Arc<Thread>> {
        let mut q = self.threads.lock();
        let i = q.iter().position(|t| want(t))?;
        let t = q.remove(i)?;
        self.len.store(q.len(), Ordering::SeqCst);
        if t.queued_long.load(Ordering::Relaxed) {
            self.long.fetch_sub(1, Ordering::Relaxed);
        }
        Some(t)
    }
    fn pop(&self) -> Option<Arc<Thread>> {
        self.take(|_| true)
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

/// CPU-bound threads waiting in CPU `index`'s queue.
pub fn long_queued(index: usize) -> usize {
    QUEUES[index].long.load(Ordering::Relaxed)
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
    let t = steal_crowded_long(me).or_else(|| steal_oldest(me))?;
    cpu.stats.steals.fetch_add(1, Ordering::Relaxed);
    Some(t)
}

/// The oldest thread of the longest queue.
fn steal_oldest(me: usize) -> Option<Arc<Thread>> {
    let victim = (0..MAX_CPUS)
        .filter(|&i| i != me)
        .max_by_key(|&i| QUEUES[i].len.load(Ordering::Relaxed))?;
    QUEUES[victim].pop()
}

/// Under the adaptive policy, a CPU-bound thread waiting on a CPU that
/// runs or holds another one.
fn steal_crowded_long(me: usize) -> Option<Arc<Thread>> {
    if super::place::policy() != Policy::Adaptive {
        return None;
    }
    let crowded = |i: usize| {
        let queued = long_queued(i);
        queued > 0 && queued + super::cpu::cpu(i).running_long.load(Ordering::Relaxed) as usize >= 2
    };
    let victim = (0..MAX_CPUS).filter(|&i| i != me).find(|&i| crowded(i))?;
    QUEUES[victim].take(|t| t.queued_long.load(Ordering::Relaxed))
}

/// Whether `Cpu` has a thread to run (its own, or one it could steal).
pub fn has_work(cpu: &Cpu) -> bool {
    runs_threads(cpu) && QUEUES.iter().any(|q| q.len.load(Ordering::SeqCst) > 0)
}

/// Whether threads wait on this CPU's own queue (time slicing yields only then).
pub fn has_local_work(cpu: &Cpu) -> bool {
    QUEUES[cpu.index()].len.load(Ordering::Relaxed) > 0
}
