//! Clocks and sleeping. Without a vDSO every time.Now() and nanotime()
//! in Go is a clock_gettime call, so it stays short.

use super::{Args, SysResult};
use crate::mm::uaccess;
use crate::sched::clock;
use crate::sched::wait::sleep_until;
use gometal_core::errno::{EINTR, EINVAL};
use gometal_core::timespec;

const CLOCK_REALTIME: u64 = 0;
const CLOCK_MONOTONIC: u64 = 1;
const CLOCK_PROCESS_CPUTIME_ID: u64 = 2;
const CLOCK_THREAD_CPUTIME_ID: u64 = 3;
const CLOCK_MONOTONIC_RAW: u64 = 4;
const CLOCK_REALTIME_COARSE: u64 = 5;
const CLOCK_MONOTONIC_COARSE: u64 = 6;
const CLOCK_BOOTTIME: u64 = 7;
const TIMER_ABSTIME: u64 = 1;

/// Now on `clock`, in ns. CPU-time clocks read as monotonic time: threads
/// are not charged individually yet.
fn now(clock_id: u64) -> Result<u64, isize> {
    match clock_id {
        CLOCK_REALTIME | CLOCK_REALTIME_COARSE => Ok(clock::realtime_ns()),
        CLOCK_MONOTONIC | CLOCK_MONOTONIC_RAW | CLOCK_MONOTONIC_COARSE | CLOCK_BOOTTIME
        | CLOCK_PROCESS_CPUTIME_ID | CLOCK_THREAD_CPUTIME_ID => Ok(clock::monotonic_ns()),
        _ => Err(EINVAL),
    }
}

fn write_timespec(ptr: u64, ns: u64) -> Result<(), isize> {
    let (sec, nsec) = timespec::ns_to_timespec(ns);
    uaccess::write_i64_pair(ptr, sec, nsec)
}

fn read_timespec(ptr: u64) -> Result<u64, isize> {
    let (sec, nsec) = uaccess::read_i64_pair(ptr)?;
    timespec::timespec_to_ns(sec, nsec).ok_or(EINVAL)
}

pub fn clock_gettime(a: &Args) -> SysResult {
    write_timespec(a[1], now(a[0])?)?;
    Ok(0)
}

pub fn clock_getres(a: &Args) -> SysResult {
    now(a[0])?;
    if a[1] != 0 {
        let res = 1_000_000_000 / clock::timebase_hz().max(1);
        write_timespec(a[1], res.max(1))?;
    }
    Ok(0)
}

pub fn gettimeofday(a: &Args) -> SysResult {
    if a[0] != 0 {
        let ns = clock::realtime_ns();
        uaccess::write_i64_pair(a[0], (ns / 1_000_000_000) as i64, ((ns % 1_000_000_000) / 1000) as i64)?;
    }
    Ok(0)
}

/// Sleeps until `deadline`; on a signal, reports the time left in `rem`.
fn sleep(deadline: u64, rem: u64) -> SysResult {
    match sleep_until(deadline) {
        Ok(()) => Ok(0),
        Err(_) => {
            if rem != 0 {
                write_timespec(rem, deadline.saturating_sub(clock::monotonic_ns()))?;
            }
            Err(EINTR)
        }
    }
}

pub fn nanosleep(a: &Args) -> SysResult {
    let ns = read_timespec(a[0])?;
    sleep(clock::monotonic_ns().saturating_add(ns), a[1])
}

pub fn clock_nanosleep(a: &Args) -> SysResult {
    let (clock_id, flags) = (a[0], a[1]);
    let ns = read_timespec(a[2])?;
    let now_on_clock = now(clock_id)?;
    let mono = clock::monotonic_ns();
    let deadline = if flags & TIMER_ABSTIME != 0 {
        ns.saturating_sub(now_on_clock).saturating_add(mono)
    } else {
        mono.saturating_add(ns)
    };
    let rem = if flags & TIMER_ABSTIME != 0 { 0 } else { a[3] };
    sleep(deadline, rem)
}
