//! epoll and eventfd: Go's netpoller. Every Go timer and every pollable
//! descriptor goes through epoll_pwait; eventfd breaks a poller out of it.

use super::args::{EventFdFlags, OpenFlags};
use super::userbuf::UserArray;
use super::SysResult;
use crate::fs::epoll::Epoll;
use crate::fs::eventfd::EventFd;
use crate::fs::fd::{self, Fd, OpenFile, O_NONBLOCK};
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::process::process;
use crate::sched::clock;
use crate::sched::wait::WaitError;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::linux::errno::{Errno, EBADF, EFAULT, EINTR, EINVAL};

const EVENT_SIZE: usize = 16; // struct epoll_event on riscv64 (not packed)

/// Most events one epoll_pwait returns (Go asks for 128): bounds the part of
/// the buffer checked and faulted in before waiting.
const MAX_EVENTS_PER_CALL: usize = 1024;

/// struct epoll_event: events, 4 bytes of padding, data.
type EpollEvent = [u8; EVENT_SIZE];

pub fn epoll_create1(_: &mut UserSpace, flags: OpenFlags) -> SysResult {
    if !(flags - OpenFlags::CLOEXEC).is_empty() {
        return Err(EINVAL);
    }
    let file = OpenFile::new(Arc::new(Epoll::new()), 2);
    process().fs.files.lock().install(file, flags.contains(OpenFlags::CLOEXEC), 0)
}

fn epoll_of(epfd: Fd) -> Result<Arc<Epoll>, Errno> {
    fd::file(epfd)?.downcast_arc::<Epoll>().ok_or(EINVAL)
}

pub fn epoll_ctl(user: &mut UserSpace, epfd: Fd, op: usize, fd: Fd, event: UserPtr<EpollEvent>) -> SysResult {
    let ep = epoll_of(epfd)?;
    let file = fd::file(fd)?;
    if fd == epfd {
        return Err(EINVAL);
    }
    let (events, data) = if op == crate::fs::epoll::EPOLL_CTL_DEL {
        (0, 0)
    } else {
        let raw = user.read(event)?;
        (u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]), u64::from_le_bytes(raw[8..16].try_into().unwrap_or_default()))
    };
    // A file added (or modified) while already ready reaches a thread
    // already blocked in epoll_pwait, as on Linux (a loopback connect is
    // complete before Go adds the socket): control queues its watch.
    ep.control(op, fd.index(), file, events, data)?;
    Ok(0)
}

/// EP_MAX_EVENTS: the most events Linux lets one call ask for.
const EP_MAX_EVENTS: i32 = i32::MAX / EVENT_SIZE as i32;

/// epoll_pwait(epfd, events, maxevents, timeout_ms, sigmask, sigsetsize).
/// The temporary signal mask is not supported (Go passes NULL). As on
/// Linux, maxevents is checked first (EINVAL), then the whole events array
/// (EFAULT), then the descriptor.
pub fn epoll_pwait(user: &mut UserSpace, epfd: Fd, events_out: UserArray<EpollEvent>, timeout: i32) -> SysResult {
    let max = events_out.count();
    if max <= 0 || max > EP_MAX_EVENTS {
        return Err(EINVAL);
    }
    let events_out = events_out.range()?;
    let ep = epoll_of(epfd).map_err(|e| if e == EBADF { EBADF } else { EINVAL })?;
    // Fault the events buffer in before waiting: an unmapped one is EFAULT
    // at once, and no more events are taken (an edge-triggered one is
    // consumed when taken) than the buffer can receive.
    let max = (max as usize).min(MAX_EVENTS_PER_CALL);
    let room = user.accessible_prefix(events_out.prefix(max * EVENT_SIZE), true)?;
    let max = room / EVENT_SIZE;
    if max == 0 {
        return Err(EFAULT);
    }
    let deadline = match timeout {
        t if t < 0 => None,
        t => Some(clock::monotonic_ns() + t as u64 * 1_000_000),
    };
    let ready = ep.waiters().wait_until(deadline, || match ep.collect(max) {
        Ok(r) if r.is_empty() => None,
        other => Some(other),
    });
    let ready: Vec<(u32, u64)> = match ready {
        Ok(r) => r?,
        Err(WaitError::TimedOut) => return Ok(0),
        Err(WaitError::Interrupted) => return Err(EINTR),
    };
    let mut out = Vec::with_capacity(ready.len() * EVENT_SIZE);
    for (events, data) in &ready {
        out.extend_from_slice(&events.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&data.to_le_bytes());
    }
    user.write_bytes(events_out.prefix(out.len()), &out)?;
    Ok(ready.len())
}

pub fn eventfd2(_: &mut UserSpace, initval: u32, flags: EventFdFlags) -> SysResult {
    if !(flags - EventFdFlags::all()).is_empty() {
        return Err(EINVAL);
    }
    let efd = EventFd::new(initval as u64, flags.contains(EventFdFlags::SEMAPHORE));
    let file = OpenFile::new(Arc::new(efd), 2 | (flags.bits() & O_NONBLOCK));
    process().fs.files.lock().install(file, flags.contains(EventFdFlags::CLOEXEC), 0)
}
