//! eventfd: a 64-bit counter behind a file descriptor. Go's netpoller uses
//! one to wake a thread blocked in epoll_pwait.

use super::epoll::in_out;
use super::fd::OpenFile;
use super::file::File;
use super::pollhub::{Hub, PollHub};
use alloc::sync::Arc;
use crate::sched::wait::{WaitError, WaitQueue};
use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::linux::errno::{Errno, EAGAIN, EINTR, EINVAL};
use crate::sync::{Lock, LockClass};

const MAX: u64 = u64::MAX - 1;

pub struct EventFd {
    count: Lock<u64>,
    semaphore: bool,
    waiters: WaitQueue,
    /// The epoll watches on it, and its change counter (edge-triggered).
    pub hub: Arc<Hub>,
    pub generation: AtomicU64,
}

impl EventFd {
    pub fn new(initial: u64, semaphore: bool) -> Self {
        EventFd { count: Lock::new(LockClass::EventCount, initial), semaphore, waiters: WaitQueue::new(), hub: Arc::new(Hub::new()), generation: AtomicU64::new(0) }
    }

    pub fn readable(&self) -> bool {
        *self.count.lock() > 0
    }

    pub fn writable(&self) -> bool {
        *self.count.lock() < MAX
    }

    /// Takes the count (or 1 in semaphore mode).
    pub fn take(&self, nonblock: bool) -> Result<u64, Errno> {
        let take = || {
            let mut c = self.count.lock();
            if *c == 0 {
                return None;
            }
            let v = if self.semaphore { 1 } else { *c };
            *c -= v;
            Some(v)
        };
        let v = if nonblock {
            take().ok_or(EAGAIN)?
        } else {
            self.waiters.wait_until(None, take).map_err(|_| EINTR)?
        };
        self.changed();
        Ok(v)
    }

    /// Adds `v` to the count, waiting while it would overflow.
    pub fn add(&self, v: u64, nonblock: bool) -> Result<(), Errno> {
        if v == u64::MAX {
            return Err(EINVAL);
        }
        let add = || {
            let mut c = self.count.lock();
            if MAX - *c < v {
                return None;
            }
            *c += v;
            Some(())
        };
        if nonblock {
            add().ok_or(EAGAIN)?;
        } else {
            self.waiters.wait_until(None, add).map_err(|e| match e {
                WaitError::Interrupted | WaitError::TimedOut => EINTR,
            })?;
        }
        self.changed();
        Ok(())
    }

    fn changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.waiters.wake_all();
        self.hub.notify();
    }
}

/// read and write move the count as 8 little-endian bytes.
impl File for EventFd {
    fn read(&self, of: &OpenFile, buf: &mut [u8], _: Option<u64>) -> Result<usize, Errno> {
        if buf.len() < 8 {
            return Err(EINVAL);
        }
        buf[..8].copy_from_slice(&self.take(of.nonblocking())?.to_le_bytes());
        Ok(8)
    }

    fn write(&self, of: &OpenFile, data: &[u8], _: Option<u64>) -> Result<usize, Errno> {
        let Some(word) = data.first_chunk::<8>() else { return Err(EINVAL) };
        self.add(u64::from_le_bytes(*word), of.nonblocking())?;
        Ok(8)
    }

    fn min_read(&self) -> usize {
        8
    }

    fn poll_hub(&self) -> Option<PollHub> {
        Some(PollHub::Own(self.hub.clone()))
    }

    fn poll(&self, _: &OpenFile) -> (u32, u64) {
        (in_out(self.readable(), self.writable()), self.generation.load(Ordering::Acquire))
    }
}
