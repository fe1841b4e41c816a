//! Where ready threads wait: one queue per hart. New and woken threads are
//! placed by the boot-selected policy (gometal_core::placement); a preempted
//! thread goes back to its own hart's queue; an idle hart steals from the
//! busiest one. Queuing on another hart that is idle wakes it with an IPI.

use super::hart::{self, Hart, HartState};
use super::thread::Thread;
use crate::param::MAX_HARTS;
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use core::sync::atomic::{AtomicUsize, Ordering};
use gometal_core::placement::{HartLoad, Placer, Policy};
use spin::{Mutex, Once};

struct RunQueue {
    threads: Mutex<VecDeque<Arc<Thread>>>,
    /// Length of `threads`, readable without the lock (for placement).
    len: AtomicUsize,
}

impl RunQueue {
    const fn new() -> Self {
        RunQueue { threads: Mutex::new(VecDeque::new()), len: AtomicUsize::new(0) }
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

static QUEUES: [RunQueue; MAX_HARTS] = [const { RunQueue::new() }; MAX_HARTS];
static PLACER: Once<Mutex<Placer>> = Once::new();

/// Chooses the placement policy (once, at boot).
pub fn set_policy(policy: Policy, seed: u64) {
    PLACER.call_once(|| Mutex::new(Placer::new(policy, seed)));
}

pub fn policy() -> Policy {
    PLACER.get().map_or(DEFAULT_POLICY, |p| p.lock().policy)
}

pub const DEFAULT_POLICY: Policy = Policy::Affinity;

/// Every online hart runs program threads.
pub fn runs_threads(hart: &Hart) -> bool {
    hart.state() == HartState::Online
}

/// Fills `out` with every hart's load; returns how many harts exist.
fn loads(out: &mut [HartLoad; MAX_HARTS]) -> usize {
    let n = hart::all().iter().rposition(|h| h.state() != HartState::Offline).map_or(1, |i| i + 1);
    for (i, h) in hart::all()[..n].iter().enumerate() {
        out[i] = HartLoad {
            online: runs_threads(h),
            load: QUEUES[i].len.load(Ordering::Relaxed) + h.is_running() as usize,
        };
    }
    n
}

/// Queues a new or woken thread on the hart the policy picks.
pub fn enqueue(t: Arc<Thread>) {
    let last = t.ran_before().then(|| t.last_hart.load(Ordering::Relaxed));
    let target = match PLACER.get() {
        Some(p) => {
            let mut view = [HartLoad::default(); MAX_HARTS];
            let n = loads(&mut view);
            p.lock().place(&view[..n], last)
        }
        None => 0,
    };
    push_on(target, t);
}

/// Queues the current hart's preempted or yielding thread on this hart.
pub fn requeue_here(t: Arc<Thread>) {
    push_on(hart::this_hart().index(), t);
}

fn push_on(index: usize, t: Arc<Thread>) {
    QUEUES[index].push(t);
    let target = hart::hart(index);
    if target.idle.load(Ordering::SeqCst) {
        crate::smp::kick(target);
    } else if let Some(idle) = hart::all().iter().find(|h| h.idle.load(Ordering::SeqCst) && runs_threads(h)) {
        // The target is busy: wake an idle hart to steal the thread rather
        // than leave it waiting for the target's next tick.
        crate::smp::kick(idle);
    }
}

/// The next thread for `hart`: its own queue first, else one stolen from
/// the hart with the longest queue.
pub fn dequeue(hart: &Hart) -> Option<Arc<Thread>> {
    if !runs_threads(hart) {
        return None;
    }
    let me = hart.index();
    if let Some(t) = QUEUES[me].pop() {
        return Some(t);
    }
    let victim = (0..MAX_HARTS)
        .filter(|&i| i != me)
        .max_by_key(|&i| QUEUES[i].len.load(Ordering::Relaxed))?;
    let t = QUEUES[victim].pop()?;
    hart.stats.steals.fetch_add(1, Ordering::Relaxed);
    Some(t)
}

/// Whether `hart` has a thread to run (its own, or one it could steal).
pub fn has_work(hart: &Hart) -> bool {
    runs_threads(hart) && QUEUES.iter().any(|q| q.len.load(Ordering::SeqCst) > 0)
}

/// Whether threads wait on this hart's own queue (time slicing yields only then).
pub fn has_local_work(hart: &Hart) -> bool {
    QUEUES[hart.index()].len.load(Ordering::Relaxed) > 0
}
