//! Clocks and sleeping. Without a vDSO every time.Now() and nanotime()
//! in Go is a clock_gettime call, so it stays short.

use super::args::Timespec;
use super::SysResult;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::process::process;
use crate::sched::wait::sleep_until;
use crate::sched::{clock, cputime, current};
use gometal_core::itimer::{decode_clock, Clock};
use gometal_core::linux::errno::{Errno, EINTR, EINVAL};
use gometal_core::linux::timespec;

const TIMER_ABSTIME: u32 = 1;

/// Now on `clock_id`, in ns: the wall clocks, the program's CPU time
/// (CLOCK_PROCESS_CPUTIME_ID) and a thread's (CLOCK_THREAD_CPUTIME_ID, or
/// another thread's clock id from pthread_getcpuclockid), counting only
/// time spent running (sched/cputime.rs).
fn now(clock_id: u32) -> Result<u64, Errno> {
    match decode_clock(clock_id as i32, process().pid).ok_or(EINVAL)? {
        Clock::Realtime => Ok(clock::realtime_ns()),
        Clock::Monotonic | Clock::Boottime => Ok(clock::monotonic_ns()),
        Clock::ProcessCpu => Ok(cputime::process_ns()),
        Clock::ThreadCpu(0) => Ok(cputime::thread_ns(&current())),
        Clock::ThreadCpu(tid) => process().thread(tid).map(|t| cputime::thread_ns(&t)).ok_or(EINVAL),
    }
}

fn write_timespec(user: &mut UserSpace, ptr: UserPtr<Timespec>, ns: u64) -> Result<(), Errno> {
    let (sec, nsec) = timespec::ns_to_timespec(ns);
    user.write(ptr, &Timespec { sec, nsec })
}

fn read_timespec(user: &mut UserSpace, ptr: UserPtr<Timespec>) -> Result<u64, Errno> {
    let Timespec { sec, nsec } = user.read(ptr)?;
    timespec::timespec_to_ns(sec, nsec).ok_or(EINVAL)
}

pub fn clock_gettime(user: &mut UserSpace, clock_id: u32, tp: UserPtr<Timespec>) -> SysResult {
    write_timespec(user, tp, now(clock_id)?)?;
    Ok(0)
}

pub fn clock_getres(user: &mut UserSpace, clock_id: u32, res: UserPtr<Timespec>) -> SysResult {
    now(clock_id)?;
    if let Some(res) = res.non_null() {
        let period = 1_000_000_000 / clock::timebase_hz().max(1);
        write_timespec(user, res, period.max(1))?;
    }
    Ok(0)
}

/// gettimeofday(tv, tz): struct timeval has the layout of a timespec, with
/// microseconds.
pub fn gettimeofday(user: &mut UserSpace, tv: UserPtr<Timespec>) -> SysResult {
    if let Some(tv) = tv.non_null() {
        let ns = clock::realtime_ns();
        let now = Timespec { sec: (ns / 1_000_000_000) as i64, nsec: ((ns % 1_000_000_000) / 1000) as i64 };
        user.write(tv, &now)?;
    }
    Ok(0)
}

/// Sleeps until `deadline`; on a signal, reports the time left in `rem`.
fn sleep(user: &mut UserSpace, deadline: u64, rem: UserPtr<Timespec>) -> SysResult {
    match sleep_until(deadline) {
        Ok(()) => Ok(0),
        Err(_) => {
            if let Some(rem) = rem.non_null() {
                write_timespec(user, rem, deadline.saturating_sub(clock::monotonic_ns()))?;
            }
            Err(EINTR)
        }
    }
}

pub fn nanosleep(user: &mut UserSpace, req: UserPtr<Timespec>, rem: UserPtr<Timespec>) -> SysResult {
    let ns = read_timespec(user, req)?;
    sleep(user, clock::monotonic_ns().saturating_add(ns), rem)
}

pub fn clock_nanosleep(
    user: &mut UserSpace,
    clock_id: u32,
    flags: u32,
    req: UserPtr<Timespec>,
    rem: UserPtr<Timespec>,
) -> SysResult {
    let ns = read_timespec(user, req)?;
    // Sleeping on a CPU clock: Linux refuses a thread's; the process's
    // would need a wait on CPU time, which nothing here offers either.
    if matches!(decode_clock(clock_id as i32, process().pid), Some(Clock::ProcessCpu | Clock::ThreadCpu(_))) {
        return Err(EINVAL);
    }
    let now_on_clock = now(clock_id)?;
    let mono = clock::monotonic_ns();
    let deadline = if flags & TIMER_ABSTIME != 0 {
        ns.saturating_sub(now_on_clock).saturating_add(mono)
    } else {
        mono.saturating_add(ns)
    };
    let rem = if flags & TIMER_ABSTIME != 0 { UserPtr::new(0) } else { rem };
    sleep(user, deadline, rem)
}
