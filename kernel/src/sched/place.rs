//! Where a new or woken thread runs — the one place that decides it.
//!
//! 1. The boot-selected policy (gometal_core::placement) names a CPU.
//! 2. If that CPU is busy while another idles, the thread goes to the idle
//!    CPU instead — preferring one that is still polling (awake) over one
//!    napping in `wfi`, which under QEMU must first be woken by the host.
//! 3. The chosen CPU is told: an idle, napping CPU gets an IPI; a polling
//!    one sees its queue by itself; a busy one (every CPU is busy) is asked
//!    to preempt its running thread at once (wakeup preemption) instead of
//!    at its next tick.
//!
//! Wakeup preemption is right for gometal because its only program is the
//! Go runtime: every thread is one of the same program's Ms, so fairness
//! between them buys nothing, while a woken M is nearly always one the
//! runtime needs now (handed a P, a locked goroutine, a netpoll result) and
//! runs briefly before it blocks again. The preempted thread goes to the
//! back of its CPU's queue and Go's own scheduler keeps goroutines fair.
//!
//! Each CPU keeps its own placer (round-robin cursor, random state), so a
//! wakeup takes no global lock.

use super::cpu::{self, this_cpu, Cpu, CpuState};
use super::runqueue::{self, runs_threads};
use super::thread::Thread;
use crate::param::MAX_CPUS;
use alloc::sync::Arc;
use core::sync::atomic::{AtomicU8, Ordering};
use gometal_core::placement::{CpuLoad, Placer, Policy};
use spin::Mutex;

pub const DEFAULT_POLICY: Policy = Policy::Affinity;

static POLICY: AtomicU8 = AtomicU8::new(3); // index into Policy::ALL: affinity
/// One placer per CPU, only ever locked by its own CPU (uncontended).
static PLACERS: [Mutex<Placer>; MAX_CPUS] = [const { Mutex::new(Placer::new(DEFAULT_POLICY, 1)) }; MAX_CPUS];

/// Chooses the placement policy (once, at boot).
pub fn set_policy(policy: Policy, seed: u64) {
    let index = Policy::ALL.iter().position(|&p| p == policy).unwrap_or(3);
    POLICY.store(index as u8, Ordering::Relaxed);
    for (i, p) in PLACERS.iter().enumerate() {
        *p.lock() = Placer::new(policy, seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    }
}

pub fn policy() -> Policy {
    Policy::ALL[POLICY.load(Ordering::Relaxed) as usize]
}

/// Fills `out` with every CPU's load; returns how many CPUs exist.
fn loads(out: &mut [CpuLoad; MAX_CPUS]) -> usize {
    let n = cpu::all().iter().rposition(|h| h.state() != CpuState::Offline).map_or(1, |i| i + 1);
    for (i, h) in cpu::all()[..n].iter().enumerate() {
        out[i] = CpuLoad { online: runs_threads(h), load: runqueue::len(i) + h.is_running() as usize };
    }
    n
}

fn is_idle(h: &Cpu) -> bool {
    h.idle.load(Ordering::SeqCst) && runs_threads(h)
}

/// An idle CPU with nothing queued, a polling one first.
fn idle_cpu() -> Option<usize> {
    let free = |i: &usize| is_idle(cpu::cpu(*i)) && runqueue::len(*i) == 0;
    let n = cpu::all().iter().rposition(|h| h.state() != CpuState::Offline).map_or(0, |i| i + 1);
    (0..n)
        .filter(free)
        .find(|&i| !cpu::cpu(i).napping.load(Ordering::SeqCst))
        .or_else(|| (0..n).find(free))
}

/// Queues a new thread (clone) or a woken one where it will run soonest.
pub fn wake_up(t: Arc<Thread>) {
    let me = this_cpu();
    let last = t.ran_before().then(|| t.last_cpu.load(Ordering::Relaxed));
    let mut view = [CpuLoad::default(); MAX_CPUS];
    let n = loads(&mut view);
    let mut target = PLACERS[me.index()].lock().place(&view[..n], last);
    let idle = idle_cpu();
    let target_busy = !is_idle(cpu::cpu(target)) || runqueue::len(target) > 0;
    if target_busy {
        if let Some(i) = idle {
            target = i;
        }
    }
    t.woken_with_idle.store(idle.is_some(), Ordering::Relaxed);
    runqueue::push(target, t);
    notify(cpu::cpu(target));
}

/// Queues the current CPU's preempted or yielding thread on this CPU.
pub fn requeue_here(t: Arc<Thread>) {
    runqueue::push(this_cpu().index(), t);
}

/// Makes `target` run its newly queued thread soon (step 3 above).
fn notify(target: &Cpu) {
    let me = this_cpu();
    if target.idle.load(Ordering::SeqCst) {
        crate::sched::smp::kick(target);
    } else {
        // Busy: preempt what it runs. On this CPU the trap return checks
        // the flag; another CPU needs an IPI to trap.
        target.need_resched.store(true, Ordering::SeqCst);
        if !core::ptr::eq(me, target) {
            crate::sched::smp::interrupt(target);
        }
    }
}

/// Whether this CPU should switch threads at this trap return: a wakeup
/// asked for it and a thread waits here.
pub fn should_preempt(cpu: &Cpu) -> bool {
    cpu.need_resched.swap(false, Ordering::SeqCst) && runqueue::has_local_work(cpu)
}
