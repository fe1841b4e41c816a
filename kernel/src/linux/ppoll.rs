//! ppoll: waiting for any of a list of descriptors (riscv64 has no poll;
//! the C library's and x/sys/unix's Poll call this). Readiness is each
//! file's own (File::poll, in epoll's bits, which poll shares); a waiting
//! thread sleeps on the queue every readiness change wakes
//! (fs/epoll.rs POLL_WAITERS) and scans its list again.

use super::args::Timespec;
use super::SysResult;
use crate::fs::epoll::{EPOLLERR, EPOLLHUP, EPOLLIN, EPOLLOUT, POLL_WAITERS};
use crate::fs::fd::{self, Fd};
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::sched::wait::WaitError;
use crate::sched::{clock, current};
use alloc::vec::Vec;
use gometal_core::linux::errno::{EINTR, EINVAL};
use gometal_core::signal as sig;
use gometal_core::linux::timespec;

const POLLFD_SIZE: usize = 8;
const POLLNVAL: u16 = 0x20;
const POLLRDNORM: u16 = 0x40;
const POLLWRNORM: u16 = 0x100;
/// The longest list one call takes (Linux: RLIMIT_NOFILE): bounds the
/// kernel's copy of it.
const MAX_FDS: u64 = 65536;

/// What `events` of descriptor `fd` are ready now (revents).
fn revents(fd: i32, events: u16) -> u16 {
    if fd < 0 {
        return 0;
    }
    let Ok(of) = fd::file(Fd(fd)) else { return POLLNVAL };
    let (ready, _) = of.file.poll(&of);
    let ready = ready as u16;
    let mut out = ready & (events | EPOLLERR as u16 | EPOLLHUP as u16);
    if ready & EPOLLIN as u16 != 0 && events & POLLRDNORM != 0 {
        out |= POLLRDNORM;
    }
    if ready & EPOLLOUT as u16 != 0 && events & POLLWRNORM != 0 {
        out |= POLLWRNORM;
    }
    out
}

/// Fills in every entry's revents; the number of entries with any.
fn scan(list: &mut [u8]) -> usize {
    let mut n = 0;
    for e in list.chunks_exact_mut(POLLFD_SIZE) {
        let fd = i32::from_le_bytes(e[0..4].try_into().unwrap_or_default());
        let events = u16::from_le_bytes([e[4], e[5]]);
        let r = revents(fd, events);
        e[6..8].copy_from_slice(&r.to_le_bytes());
        n += (r != 0) as usize;
    }
    n
}

/// ppoll(fds, nfds, timeout, sigmask, sigsetsize). The signal mask, if
/// given, is the thread's while it waits; a signal it lets through ends
/// the wait (EINTR) but, if the old mask blocks it, is delivered only once
/// the old mask allows it (Linux delivers it first).
pub fn ppoll(user: &mut UserSpace, fds: UserPtr<u8>, nfds: u64, tmo: UserPtr<Timespec>, sigmask: UserPtr<u64>, sigsetsize: usize) -> SysResult {
    if nfds > fd::nofile_limit().soft.min(MAX_FDS) {
        return Err(EINVAL);
    }
    let deadline = match tmo.non_null() {
        Some(p) => {
            let Timespec { sec, nsec } = user.read(p)?;
            Some(clock::monotonic_ns().saturating_add(timespec::timespec_to_ns(sec, nsec).ok_or(EINVAL)?))
        }
        None => None,
    };
    let mask = match sigmask.non_null() {
        Some(_) if sigsetsize != 8 => return Err(EINVAL),
        Some(p) => Some(user.read(p)?),
        None => None,
    };
    let slice = fds.slice(nfds as usize * POLLFD_SIZE);
    let mut list: Vec<u8> = user.read_bytes(slice)?;
    let t = current();
    let old = mask.map(|m| core::mem::replace(&mut t.signals.lock().blocked, m & !sig::UNBLOCKABLE));
    let result = if deadline.is_some_and(|d| d <= clock::monotonic_ns()) {
        Ok(scan(&mut list))
    } else {
        POLL_WAITERS.wait_until(deadline, || match scan(&mut list) {
            0 => None,
            n => Some(n),
        })
    };
    if let Some(old) = old {
        t.signals.lock().blocked = old;
    }
    let n = match result {
        Ok(n) => n,
        Err(WaitError::TimedOut) => scan(&mut list),
        Err(WaitError::Interrupted) => return Err(EINTR),
    };
    user.write_bytes(slice, &list)?;
    if let Some(p) = tmo.non_null() {
        let left = deadline.map_or(0, |d| d.saturating_sub(clock::monotonic_ns()));
        let (sec, nsec) = timespec::ns_to_timespec(left);
        user.write(p, &Timespec { sec, nsec })?;
    }
    Ok(n)
}
