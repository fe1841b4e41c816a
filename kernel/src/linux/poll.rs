//! epoll and eventfd: Go's netpoller. Every Go timer and every pollable
//! descriptor goes through epoll_pwait; eventfd breaks a poller out of it.

use super::{Args, SysResult};
use crate::fs::epoll::{Epoll, POLL_WAITERS};
use crate::fs::eventfd::EventFd;
use crate::fs::fd::{self, FileKind, OpenFile, O_NONBLOCK};
use crate::mm::uaccess;
use crate::process::process;
use crate::sched::clock;
use crate::sched::wait::WaitError;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::errno::{EBADF, EINTR, EINVAL};

const CLOEXEC: u64 = 0o2000000;
const EFD_SEMAPHORE: u64 = 1;
const EVENT_SIZE: usize = 16; // struct epoll_event on riscv64 (not packed)

pub fn epoll_create1(a: &Args) -> SysResult {
    if a[0] & !CLOEXEC != 0 {
        return Err(EINVAL);
    }
    let file = OpenFile::new(FileKind::Epoll(Arc::new(Epoll::new())), 2);
    Ok(process().files.lock().install(file, a[0] & CLOEXEC != 0, 0)? as isize)
}

fn epoll_of(epfd: u64) -> Result<Arc<Epoll>, isize> {
    match &fd::file(epfd)?.kind {
        FileKind::Epoll(e) => Ok(e.clone()),
        _ => Err(EINVAL),
    }
}

pub fn epoll_ctl(a: &Args) -> SysResult {
    let (epfd, op, fdno, event) = (a[0], a[1] as usize, a[2], a[3]);
    let ep = epoll_of(epfd)?;
    let file = fd::file(fdno)?;
    if fdno == epfd {
        return Err(EINVAL);
    }
    let (events, data) = if op == crate::fs::epoll::EPOLL_CTL_DEL {
        (0, 0)
    } else {
        let raw = uaccess::read_bytes(event, EVENT_SIZE)?;
        (u32::from_le_bytes(raw[0..4].try_into().unwrap()), u64::from_le_bytes(raw[8..16].try_into().unwrap()))
    };
    ep.control(op, fdno as usize, file, events, data)?;
    Ok(0)
}

/// epoll_pwait(epfd, events, maxevents, timeout_ms, sigmask, sigsetsize).
/// The temporary signal mask is not supported (Go passes NULL).
pub fn epoll_pwait(a: &Args) -> SysResult {
    let (events_ptr, max, timeout) = (a[1], a[2] as i32, a[3] as i32);
    if max <= 0 {
        return Err(EINVAL);
    }
    let ep = epoll_of(a[0]).map_err(|e| if e == EBADF { EBADF } else { EINVAL })?;
    let deadline = match timeout {
        t if t < 0 => None,
        t => Some(clock::monotonic_ns() + t as u64 * 1_000_000),
    };
    let ready = POLL_WAITERS.wait_until(deadline, || {
        let r = ep.collect(max as usize);
        (!r.is_empty()).then_some(r)
    });
    let ready: Vec<(u32, u64)> = match ready {
        Ok(r) => r,
        Err(WaitError::TimedOut) => return Ok(0),
        Err(WaitError::Interrupted) => return Err(EINTR),
    };
    let mut out = Vec::with_capacity(ready.len() * EVENT_SIZE);
    for (events, data) in &ready {
        out.extend_from_slice(&events.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&data.to_le_bytes());
    }
    uaccess::write_bytes(events_ptr, &out)?;
    Ok(ready.len() as isize)
}

pub fn eventfd2(a: &Args) -> SysResult {
    let flags = a[1];
    if flags & !(CLOEXEC | O_NONBLOCK as u64 | EFD_SEMAPHORE) != 0 {
        return Err(EINVAL);
    }
    let efd = EventFd::new(a[0] as u32 as u64, flags & EFD_SEMAPHORE != 0);
    let file = OpenFile::new(FileKind::EventFd(Arc::new(efd)), 2 | (flags as u32 & O_NONBLOCK));
    Ok(process().files.lock().install(file, flags & CLOEXEC != 0, 0)? as isize)
}
