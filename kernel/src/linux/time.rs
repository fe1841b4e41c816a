//! Clocks and sleeping. Without a vDSO every time.Now() and nanotime()
//! in Go is a clock_gettime call, so it stays short.

use super::args::Timespec;
use super::SysResult;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::sched::clock;
use crate::sched::wait::sleep_until;
use gometal_core::errno::{Errno, EINTR, EINVAL};
use gometal_core::timespec;

const CLOCK_REALTIME: u32 = 0;
const CLOCK_MONOTONIC: u32 = 1;
const CLOCK_PROCESS_CPUTIME_ID: u32 = 2;
const CLOCK_THREAD_CPUTIME_ID: u32 = 3;
const CLOCK_MONOTONIC_RAW: u32 = 4;
const CLOCK_REALTIME_COARSE: u32 = 5;
const CLOCK_MONOTONIC_COARSE: u32 = 6;
const CLOCK_BOOTTIME: u32 = 7;
const TIMER_ABSTIME: u32 = 1;

/// Now on `clock`, in ns. CPU-time clocks read as monotonic time: threads
/// are not charged individually yet.
fn now(clock_id: u32) -> Result<u64, Errno> {
    match clock_id {
        CLOCK_REALTIME | CLOCK_REALTIME_COARSE => Ok(clock::realtime_ns()),
        CLOCK_MONOTONIC | CLOCK_MONOTONIC_RAW | CLOCK_MONOTONIC_COARSE | CLOCK_BOOTTIME
        | CLOCK_PROCESS_CPUTIME_ID | CLOCK_THREAD_CPUTIME_ID => Ok(clock::monotonic_ns()),
        _ => Err(EINVAL),
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
