//! Interval timers: setitimer/getitimer and the POSIX timers
//! (timer_create, timer_settime, timer_gettime, timer_getoverrun,
//! timer_delete), decoded here and kept by itimer.rs.

use super::args::Timespec;
use super::SysResult;
use crate::itimer::{self, Notify, Spec, TimerId};
use crate::mm::uaccess::{UserPtr, UserSpace, UserValue};
use crate::process::process;
use crate::sched::current;
use gometal_core::linux::errno::{Errno, EINVAL};
use gometal_core::itimer::{decode_clock, Clock, SIGEV_NONE, SIGEV_SIGNAL, SIGEV_THREAD, SIGEV_THREAD_ID};
use gometal_core::signal as sig;
use gometal_core::linux::timespec;

const TIMER_ABSTIME: i32 = 1;
const NS_PER_US: u64 = 1000;

/// struct itimerspec (timer_*) and struct itimerval (setitimer, with
/// microseconds): an interval, then a value, each two longs.
pub struct TimerPair {
    interval: Timespec,
    value: Timespec,
}

impl UserValue for TimerPair {
    const SIZE: usize = 32;
    fn decode(b: &[u8]) -> Self {
        TimerPair { interval: Timespec::decode(&b[..16]), value: Timespec::decode(&b[16..]) }
    }
    fn encode(&self, out: &mut [u8]) {
        self.interval.encode(&mut out[..16]);
        self.value.encode(&mut out[16..]);
    }
}

/// struct sigevent (64 bytes): sigev_value, sigev_signo, sigev_notify,
/// then sigev_notify_thread_id (SIGEV_THREAD_ID).
pub struct SigEvent {
    value: u64,
    signo: i32,
    notify: i32,
    tid: i32,
}

impl UserValue for SigEvent {
    const SIZE: usize = 64;
    fn decode(b: &[u8]) -> Self {
        SigEvent { value: u64::decode(&b[..8]), signo: i32::decode(&b[8..12]), notify: i32::decode(&b[12..16]), tid: i32::decode(&b[16..20]) }
    }
    fn encode(&self, out: &mut [u8]) {
        out.fill(0);
        self.value.encode(&mut out[..8]);
        self.signo.encode(&mut out[8..12]);
        self.notify.encode(&mut out[12..16]);
        self.tid.encode(&mut out[16..20]);
    }
}

/// ns from a timespec (unit 1) or timeval (unit 1000 for microseconds).
fn to_ns(t: Timespec, unit: u64) -> Result<u64, Errno> {
    if t.sec < 0 || t.nsec < 0 || t.nsec as u64 >= 1_000_000_000 / unit {
        return Err(EINVAL);
    }
    timespec::timespec_to_ns(t.sec, t.nsec * unit as i64).ok_or(EINVAL)
}

fn from_ns(ns: u64, unit: u64) -> Timespec {
    let (sec, nsec) = timespec::ns_to_timespec(ns);
    Timespec { sec, nsec: nsec / unit as i64 }
}

fn pair(value: u64, interval: u64, unit: u64) -> TimerPair {
    TimerPair { interval: from_ns(interval, unit), value: from_ns(value, unit) }
}

/// A clock a timer may use: the thread CPU clock of the caller is named by
/// its tid; another thread's must exist.
fn timer_clock(clock_id: i32) -> Result<Clock, Errno> {
    match decode_clock(clock_id, process().pid).ok_or(EINVAL)? {
        Clock::ThreadCpu(0) => Ok(Clock::ThreadCpu(current().tid)),
        Clock::ThreadCpu(tid) if process().thread(tid).is_none() => Err(EINVAL),
        c => Ok(c),
    }
}

pub fn timer_create(user: &mut UserSpace, clock_id: i32, sevp: UserPtr<SigEvent>, timerid: UserPtr<i32>) -> SysResult {
    let clock = timer_clock(clock_id)?;
    let (notify, signo, value) = match sevp.non_null() {
        None => (Notify::Process, sig::SIGALRM, None),
        Some(p) => {
            let ev = user.read(p)?;
            let notify = match ev.notify {
                SIGEV_NONE => Notify::Nothing,
                // SIGEV_THREAD is the C library's (it makes the thread);
                // to the kernel it is a signal, as SIGEV_SIGNAL.
                SIGEV_SIGNAL | SIGEV_THREAD => Notify::Process,
                n if n == SIGEV_THREAD_ID | SIGEV_SIGNAL => {
                    process().thread(ev.tid as u32).ok_or(EINVAL)?;
                    Notify::Thread(ev.tid as u32)
                }
                _ => return Err(EINVAL),
            };
            if notify != Notify::Nothing && !(1..=sig::NSIG as i32).contains(&ev.signo) {
                return Err(EINVAL);
            }
            (notify, ev.signo.max(0) as usize, Some(ev.value))
        }
    };
    // Check the result pointer before making anything.
    user.write(timerid, &0)?;
    let id = itimer::create(Spec { clock, notify, signo, value })?;
    if let Err(e) = user.write(timerid, &id) {
        let _ = itimer::delete(id);
        return Err(e);
    }
    Ok(0)
}

pub fn timer_settime(user: &mut UserSpace, id: i32, flags: i32, new: UserPtr<TimerPair>, old: UserPtr<TimerPair>) -> SysResult {
    let want = user.read(new)?;
    let value = to_ns(want.value, 1)?;
    let interval = to_ns(want.interval, 1)?;
    let (left, period) = itimer::set(TimerId::Posix(id), value, interval, flags & TIMER_ABSTIME != 0)?;
    if let Some(old) = old.non_null() {
        user.write(old, &pair(left, period, 1))?;
    }
    Ok(0)
}

pub fn timer_gettime(user: &mut UserSpace, id: i32, curr: UserPtr<TimerPair>) -> SysResult {
    let (left, period) = itimer::get(TimerId::Posix(id))?;
    user.write(curr, &pair(left, period, 1))?;
    Ok(0)
}

pub fn timer_getoverrun(_: &mut UserSpace, id: i32) -> SysResult {
    Ok(itimer::overrun(id)? as usize)
}

pub fn timer_delete(_: &mut UserSpace, id: i32) -> SysResult {
    itimer::delete(id)?;
    Ok(0)
}

fn which_itimer(which: i32) -> Result<TimerId, Errno> {
    match which as u32 {
        w @ (itimer::ITIMER_REAL | itimer::ITIMER_VIRTUAL | itimer::ITIMER_PROF) => Ok(TimerId::Itimer(w)),
        _ => Err(EINVAL),
    }
}

/// setitimer; a NULL new value disarms, as Linux has long allowed.
pub fn setitimer(user: &mut UserSpace, which: i32, new: UserPtr<TimerPair>, old: UserPtr<TimerPair>) -> SysResult {
    let id = which_itimer(which)?;
    let (value, interval) = match new.non_null() {
        Some(p) => {
            let want = user.read(p)?;
            (to_ns(want.value, NS_PER_US)?, to_ns(want.interval, NS_PER_US)?)
        }
        None => (0, 0),
    };
    let (left, period) = itimer::set(id, value, interval, false)?;
    if let Some(old) = old.non_null() {
        user.write(old, &pair(left, period, NS_PER_US))?;
    }
    Ok(0)
}

pub fn getitimer(user: &mut UserSpace, which: i32, curr: UserPtr<TimerPair>) -> SysResult {
    let (left, period) = itimer::get(which_itimer(which)?)?;
    user.write(curr, &pair(left, period, NS_PER_US))?;
    Ok(0)
}
