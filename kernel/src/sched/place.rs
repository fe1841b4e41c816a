//! Where a new or woken thread runs — the one place that decides it.
//!
//! 1. The boot-selected policy (gometal_core::sched::placement; `adaptive` also
//!    reads the thread's profile, profile.rs) names a CPU.
//! 2. If that CPU is busy while another idles, the thread goes to the idle
//!    CPU instead — preferring one that is still polling (awake) over one
//!    napping in `wfi`, which under QEMU must first be woken by the host.
//! 3. **Hand-off** (`wakesteal=US|off`, default 0): if the chosen CPU
//!    naps, the thread goes to a CPU idling awake if there is one;
//!    otherwise it joins *this* CPU's queue — this CPU is running, so its
//!    vCPU is on a host core right now — and the napping CPU still gets its
//!    IPI. Whichever is free first runs it: this CPU preempts its own
//!    thread for it at this trap's return (after US µs with `wakesteal=US`,
//!    timed by this CPU's timer), and the napping CPU, once awake, steals
//!    whatever waits here — the woken thread, or the preempted waker, which
//!    then carries on over there. A wakeup thus never waits for the host to
//!    schedule one particular napping vCPU, which on a loaded host takes
//!    milliseconds (docs/scheduling.md), and no CPU time is lost: this CPU
//!    is busy throughout. It suits Go's own hand-offs too: an M that wakes
//!    a spinning M to take some of its goroutines loses its CPU for the
//!    spinner's short burst, and gets it back, or another CPU, as soon as
//!    either is free. A grace period (`wakesteal=50`) relies on a timer
//!    interrupt, which QEMU delivers from its main-loop thread — another
//!    host thread to wait for, and slower than the IPI on a loaded host.
//! 4. The chosen CPU is told: an idle, napping CPU gets an IPI; a polling
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
use core::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use gometal_core::sched::adaptive::Wakee;
use gometal_core::boot::bootargs::WakeSteal;
use gometal_core::sched::placement::{CpuLoad, Placer, Policy};
use gometal_core::sched::threadprofile::Class;
use crate::sync::{Lock, LockClass};

pub const DEFAULT_POLICY: Policy = Policy::Affinity;

static POLICY: AtomicU8 = AtomicU8::new(3); // index into Policy::ALL: affinity
/// One placer per CPU, only ever locked by its own CPU (uncontended).
static PLACERS: [Lock<Placer>; MAX_CPUS] = [const { Lock::new(LockClass::Placer, Placer::new(DEFAULT_POLICY, 1)) }; MAX_CPUS];

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

/// How long a handed-off thread may wait on the waker's CPU before it
/// preempts the waker (step 3; HANDOFF_OFF: no hand-off).
static HANDOFF_GRACE_NS: AtomicU64 = AtomicU64::new(DEFAULT_HANDOFF_GRACE_NS);
const HANDOFF_OFF: u64 = u64::MAX;
/// At once: see docs/scheduling.md for the measurements behind it.
const DEFAULT_HANDOFF_GRACE_NS: u64 = 0;

/// Applies `wakesteal=US|off` (at boot).
pub fn configure_handoff(w: WakeSteal) {
    let ns = match w {
        WakeSteal::Off => HANDOFF_OFF,
        WakeSteal::AfterUs(us) => (us as u64).saturating_mul(1000),
    };
    HANDOFF_GRACE_NS.store(ns, Ordering::Relaxed);
}

/// Fills `out` with every CPU's load; returns how many CPUs exist.
fn loads(out: &mut [CpuLoad; MAX_CPUS]) -> usize {
    let n = cpu::all().iter().rposition(|h| h.state() != CpuState::Offline).map_or(1, |i| i + 1);
    for (i, h) in cpu::all()[..n].iter().enumerate() {
        let queued = runqueue::len(i);
        let idle = is_idle(h) && queued == 0;
        out[i] = CpuLoad {
            online: runs_threads(h),
            load: queued + h.is_running() as usize,
            idle,
            awake: idle && !h.napping.load(Ordering::SeqCst),
            long: runqueue::long_queued(i) + h.running_long.load(Ordering::Relaxed) as usize,
            cache: h.cache_group.load(Ordering::Relaxed),
        };
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
    let wakee = Wakee { last, class: t.profile.class(), migrate_pm: t.profile.migrate_pm() };
    let mut view = [CpuLoad::default(); MAX_CPUS];
    let n = loads(&mut view);
    let mut target = PLACERS[me.index()].lock().place(&view[..n], wakee);
    let idle = idle_cpu();
    let target_busy = !is_idle(cpu::cpu(target)) || runqueue::len(target) > 0;
    if target_busy {
        if let Some(i) = idle {
            target = i;
        }
    }
    t.woken_with_idle.store(idle.is_some(), Ordering::Relaxed);
    let grace = HANDOFF_GRACE_NS.load(Ordering::Relaxed);
    if grace != HANDOFF_OFF && cpu::cpu(target).napping.load(Ordering::SeqCst) {
        match idle.filter(|&i| !cpu::cpu(i).napping.load(Ordering::SeqCst)) {
            Some(awake) => target = awake,
            None if me.is_running() && target != me.index() => return hand_off(me, target, t, grace),
            None => {}
        }
    }
    runqueue::push(target, t);
    notify(cpu::cpu(target));
}

/// Step 3: queues `t` here, wakes napping `target` so that it may steal
/// it, and preempts this CPU's thread for it after `grace_ns` (0: at this
/// trap's return).
fn hand_off(me: &Cpu, target: usize, t: Arc<Thread>, grace_ns: u64) {
    t.handed_to.store(me.index(), Ordering::Relaxed);
    runqueue::push(me.index(), t);
    super::smp::kick(cpu::cpu(target));
    if grace_ns == 0 {
        super::latency::count_handoff_preempt();
        me.need_resched.store(true, Ordering::SeqCst);
        return;
    }
    let at = super::clock::monotonic_ns() + grace_ns;
    // Keep an earlier deadline of a previous hand-off (0: none).
    let _ = me.handoff_at.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| (old == 0 || at < old).then_some(at));
    super::timer::program(me);
}

/// Refreshes the running thread's class at a tick: a thread that has run
/// since its switch-in may have become CPU-bound.
pub fn refresh_running(cpu: &Cpu) {
    if let Some(t) = cpu.current() {
        t.profile.refresh();
        cpu.running_long.store(t.profile.class() == Class::Long, Ordering::Relaxed);
    }
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
