//! The program's timers: setitimer's three (ITIMER_REAL: SIGALRM on wall
//! time; ITIMER_VIRTUAL: SIGVTALRM and ITIMER_PROF: SIGPROF on the
//! program's CPU time) and the POSIX timers of timer_create, on the wall
//! clocks, the process's CPU clock or one thread's. Go's profiler uses a
//! POSIX timer per thread on that thread's CPU clock, delivering SIGPROF to
//! it (SIGEV_THREAD_ID), and setitimer(ITIMER_PROF) as its fallback.
//!
//! CPU clocks only move while a thread runs, so their timers are checked
//! at every interrupt taken from user mode (the 4 ms tick at least) against
//! a lock-free earliest expiry: the thread's own (`Thread::cpu_timer_at`)
//! and the process's (`PROCESS_CPU_AT`). Wall-clock timers share one kernel
//! timer event armed for the earliest of them. Signals are sent after the
//! table's lock is released. Expiry arithmetic and clock ids: core/itimer.rs.

use crate::process::process;
use crate::sched::event::TimerEvent;
use crate::sched::{clock, cputime, Thread};
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::linux::errno::{Errno, EAGAIN, EINVAL};
use gometal_core::itimer::{Clock, Interval};
use gometal_core::signal::sigframe::SigInfo;
use gometal_core::signal as sig;

use crate::signal::SI_TIMER;

/// Where a timer's signal goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notify {
    /// SIGEV_NONE: no signal (timer_gettime shows it running).
    Nothing,
    /// The process: the running thread when it fired on a CPU clock (so a
    /// profile samples the thread that used the time), else any thread.
    Process,
    /// SIGEV_THREAD_ID: this thread.
    Thread(u32),
}

/// Which timer: a POSIX timer's id, or one of setitimer's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TimerId {
    Itimer(u32),
    Posix(i32),
}

/// What timer_create asks for; the clock is resolved (a thread CPU clock
/// names its thread).
pub struct Spec {
    pub clock: Clock,
    pub notify: Notify,
    pub signo: usize,
    /// sigev_value; None (no sigevent given): the timer's id, as Linux.
    pub value: Option<u64>,
}

struct Timer {
    spec: Spec,
    interval: Interval,
    /// Expirations the last signal stood for, minus one (timer_getoverrun).
    overrun: u64,
}

/// The timers; setitimer's under `Itimer(which)`.
static TIMERS: crate::sync::Lock<BTreeMap<TimerId, Timer>> = crate::sync::Lock::new(crate::sync::LockClass::ProgramTimers, BTreeMap::new());
/// The earliest expiry on the process CPU clock (u64::MAX: none).
static PROCESS_CPU_AT: AtomicU64 = AtomicU64::new(u64::MAX);
/// Fires the wall-clock timers (their expiries are kept in monotonic ns).
static WALL_EVENT: TimerEvent = TimerEvent::new(fire_wall);

/// POSIX timers a program may hold: one per thread (Go makes one per
/// thread while profiling) and some to spare; past it EAGAIN, as Linux
/// past its signal-queue limit.
fn max_timers() -> usize {
    crate::process::max_threads() + 1024
}

/// The time now on `clock`, in the ns timers keep: monotonic for every
/// wall clock, CPU time for the CPU clocks. None: no such thread.
pub fn now_on(clock: Clock) -> Option<u64> {
    match clock {
        Clock::Realtime | Clock::Monotonic | Clock::Boottime => Some(clock::monotonic_ns()),
        Clock::ProcessCpu => Some(cputime::process_ns()),
        Clock::ThreadCpu(tid) => process().thread(tid).map(|t| cputime::thread_ns(&t)),
    }
}

/// timer_create: a new disarmed timer; its id.
pub fn create(spec: Spec) -> Result<i32, Errno> {
    let mut timers = TIMERS.lock();
    let posix = timers.keys().filter(|k| matches!(k, TimerId::Posix(_))).count();
    if posix >= max_timers() {
        return Err(EAGAIN);
    }
    // The lowest free id, as Linux hands them out.
    let mut id = 0;
    while timers.contains_key(&TimerId::Posix(id)) {
        id += 1;
    }
    timers.insert(TimerId::Posix(id), Timer { spec, interval: Interval::default(), overrun: 0 });
    Ok(id)
}

/// timer_delete.
pub fn delete(id: i32) -> Result<(), Errno> {
    let gone = TIMERS.lock().remove(&TimerId::Posix(id)).ok_or(EINVAL)?;
    recompute(gone.spec.clock);
    Ok(())
}

/// Arms (or disarms, value 0) a timer: `value` from now, or at `value` on
/// its clock when `absolute`; every `period` after. Returns what was left
/// of the old setting (value, period). An itimer is made on first use.
pub fn set(id: TimerId, value: u64, period: u64, absolute: bool) -> Result<(u64, u64), Errno> {
    let old;
    let clock;
    {
        let mut timers = TIMERS.lock();
        if let TimerId::Itimer(which) = id {
            timers.entry(id).or_insert_with(|| itimer(which));
        }
        let t = timers.get_mut(&id).ok_or(EINVAL)?;
        clock = t.spec.clock;
        let now = now_on(clock).ok_or(EINVAL)?;
        old = t.interval.remaining(now);
        t.interval = if value == 0 {
            Interval::default()
        } else if absolute {
            let at = match clock {
                // Absolute wall time: to the monotonic ns timers keep.
                Clock::Realtime => value.saturating_sub(clock::realtime_offset_ns()),
                _ => value,
            };
            Interval::arm_absolute(at.max(1), period)
        } else {
            Interval::arm_relative(now, value, period)
        };
        t.overrun = 0;
    }
    recompute(clock);
    Ok(old)
}

/// timer_gettime / getitimer: (time left, period); a never-set itimer is 0.
pub fn get(id: TimerId) -> Result<(u64, u64), Errno> {
    let timers = TIMERS.lock();
    match timers.get(&id) {
        Some(t) => Ok(t.interval.remaining(now_on(t.spec.clock).unwrap_or(0))),
        None if matches!(id, TimerId::Itimer(_)) => Ok((0, 0)),
        None => Err(EINVAL),
    }
}

/// timer_getoverrun.
pub fn overrun(id: i32) -> Result<u64, Errno> {
    TIMERS.lock().get(&TimerId::Posix(id)).map(|t| t.overrun.min(i32::MAX as u64)).ok_or(EINVAL)
}

pub const ITIMER_REAL: u32 = 0;
pub const ITIMER_VIRTUAL: u32 = 1;
pub const ITIMER_PROF: u32 = 2;

/// One of setitimer's timers. ITIMER_VIRTUAL counts user and kernel time
/// alike (the kernel does not split them), as ITIMER_PROF does.
fn itimer(which: u32) -> Timer {
    let (clock, signo) = match which {
        ITIMER_REAL => (Clock::Monotonic, sig::SIGALRM),
        ITIMER_VIRTUAL => (Clock::ProcessCpu, sig::SIGVTALRM),
        _ => (Clock::ProcessCpu, sig::SIGPROF),
    };
    Timer { spec: Spec { clock, notify: Notify::Process, signo, value: Some(0) }, interval: Interval::default(), overrun: 0 }
}

/// Recomputes the earliest expiry that the checks for `clock` read.
fn recompute(clock: Clock) {
    let timers = TIMERS.lock();
    let earliest = |want: &dyn Fn(Clock) -> bool| {
        timers.values().filter(|t| want(t.spec.clock) && t.interval.armed()).map(|t| t.interval.next).min().unwrap_or(u64::MAX)
    };
    match clock {
        Clock::ProcessCpu => PROCESS_CPU_AT.store(earliest(&|c| c == Clock::ProcessCpu), Ordering::Release),
        Clock::ThreadCpu(tid) => {
            let at = earliest(&|c| c == Clock::ThreadCpu(tid));
            drop(timers);
            if let Some(t) = process().thread(tid) {
                t.cpu_timer_at.store(at, Ordering::Release);
            }
        }
        _ => {
            let at = earliest(&|c| matches!(c, Clock::Realtime | Clock::Monotonic | Clock::Boottime));
            drop(timers);
            WALL_EVENT.arm(at);
        }
    }
}

/// A signal to send once the table is unlocked.
struct Firing {
    notify: Notify,
    info: SigInfo,
}

/// Expires every armed timer on a clock `which` accepts, at `now`.
fn expire(which: &dyn Fn(Clock) -> bool, now: u64) -> Vec<Firing> {
    let mut timers = TIMERS.lock();
    let mut out = Vec::new();
    for (id, t) in timers.iter_mut().filter(|(_, t)| which(t.spec.clock)) {
        let count = t.interval.expire(now);
        if count == 0 || t.spec.notify == Notify::Nothing {
            continue;
        }
        t.overrun = count - 1;
        let (code, timer_id) = match id {
            TimerId::Posix(n) => (SI_TIMER, *n as u64),
            TimerId::Itimer(_) => (sig::SI_KERNEL, 0),
        };
        let value = t.spec.value.unwrap_or(timer_id);
        let overrun = if code == SI_TIMER { t.overrun.min(i32::MAX as u64) as u32 } else { 0 };
        let info = SigInfo { signo: t.spec.signo as i32, code, pid_or_addr: timer_id, uid: overrun, addr_is_fault: false, value };
        out.push(Firing { notify: t.spec.notify, info });
    }
    out
}

fn send(firings: Vec<Firing>, running: Option<&Arc<Thread>>) {
    for f in firings {
        let signo = f.info.signo as usize;
        match f.notify {
            Notify::Nothing => {}
            Notify::Thread(tid) => {
                if let Some(t) = process().thread(tid) {
                    crate::signal::send_to_thread(&t, signo, f.info);
                }
            }
            Notify::Process => match running {
                Some(t) if !sig::contains(t.signals.lock().blocked, signo) => crate::signal::send_to_thread(t, signo, f.info),
                _ => crate::signal::send_to_process(signo, f.info),
            },
        }
    }
}

/// An interrupt came while `t` ran in user mode: fires the CPU-clock
/// timers that are due (the thread's own and the process's).
pub fn on_interrupt(t: &Arc<Thread>) {
    let at = t.cpu_timer_at.load(Ordering::Acquire);
    if at != u64::MAX && cputime::thread_ns(t) >= at {
        let mine = Clock::ThreadCpu(t.tid);
        let firings = expire(&|c| c == mine, cputime::thread_ns(t));
        recompute(mine);
        send(firings, Some(t));
    }
    let at = PROCESS_CPU_AT.load(Ordering::Acquire);
    if at != u64::MAX && cputime::process_ns() >= at {
        let firings = expire(&|c| c == Clock::ProcessCpu, cputime::process_ns());
        recompute(Clock::ProcessCpu);
        send(firings, Some(t));
    }
}

/// The wall-clock timers' event (timer interrupt or idle loop, no lock held).
fn fire_wall() {
    let wall = |c| matches!(c, Clock::Realtime | Clock::Monotonic | Clock::Boottime);
    let firings = expire(&wall, clock::monotonic_ns());
    recompute(Clock::Monotonic);
    send(firings, None);
}
