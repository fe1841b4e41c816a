//! epoll: the interest list of an epoll instance and readiness polling.
//! Every readiness change anywhere wakes all epoll waiters, which re-scan
//! their (short) interest lists: simple, and a Go program has one epoll
//! instance with a handful of descriptors.

use super::fd::{FileKind, OpenFile};
use crate::sched::wait::WaitQueue;
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::errno::{EEXIST, ENOENT, EPERM};
use spin::Mutex;

pub const EPOLLIN: u32 = 0x1;
pub const EPOLLOUT: u32 = 0x4;
pub const EPOLLERR: u32 = 0x8;
pub const EPOLLHUP: u32 = 0x10;
pub const EPOLLONESHOT: u32 = 1 << 30;
pub const EPOLLET: u32 = 1 << 31;

pub const EPOLL_CTL_ADD: usize = 1;
pub const EPOLL_CTL_DEL: usize = 2;
pub const EPOLL_CTL_MOD: usize = 3;

/// Threads in epoll_pwait.
pub static POLL_WAITERS: WaitQueue = WaitQueue::new();

/// Called after any change that may make a file ready.
pub fn notify() {
    POLL_WAITERS.wake_all();
}

/// The readiness of a file, as epoll event bits.
pub fn readiness(file: &OpenFile) -> u32 {
    match &file.kind {
        FileKind::Console => EPOLLOUT | if crate::console::input_ready() { EPOLLIN } else { 0 },
        FileKind::EventFd(e) => {
            (if e.readable() { EPOLLIN } else { 0 }) | if e.writable() { EPOLLOUT } else { 0 }
        }
        _ => EPOLLIN | EPOLLOUT,
    }
}

struct Interest {
    events: u32,
    data: u64,
    file: Arc<OpenFile>,
    /// For edge-triggered interest: what was last reported.
    reported: u32,
    disabled: bool,
}

pub struct Epoll {
    interest: Mutex<BTreeMap<usize, Interest>>,
}

impl Epoll {
    pub fn new() -> Self {
        Epoll { interest: Mutex::new(BTreeMap::new()) }
    }

    pub fn control(&self, op: usize, fd: usize, file: Arc<OpenFile>, events: u32, data: u64) -> Result<(), isize> {
        if matches!(file.kind, FileKind::Regular(_) | FileKind::Directory { .. }) {
            return Err(EPERM); // as Linux: regular files are always ready
        }
        let mut map = self.interest.lock();
        match op {
            EPOLL_CTL_ADD if map.contains_key(&fd) => Err(EEXIST),
            EPOLL_CTL_ADD | EPOLL_CTL_MOD => {
                if op == EPOLL_CTL_MOD && !map.contains_key(&fd) {
                    return Err(ENOENT);
                }
                map.insert(fd, Interest { events, data, file, reported: 0, disabled: false });
                Ok(())
            }
            EPOLL_CTL_DEL => map.remove(&fd).map(|_| ()).ok_or(ENOENT),
            _ => Err(gometal_core::errno::EINVAL),
        }
    }

    /// Ready (events, data) pairs, at most `max`.
    pub fn collect(&self, max: usize) -> Vec<(u32, u64)> {
        let mut out = Vec::new();
        for it in self.interest.lock().values_mut() {
            if out.len() == max {
                break;
            }
            if it.disabled {
                continue;
            }
            let ready = readiness(&it.file) & (it.events | EPOLLERR | EPOLLHUP);
            if it.events & EPOLLET != 0 {
                let new = ready & !it.reported;
                it.reported = ready;
                if new == 0 {
                    continue;
                }
            }
            if ready != 0 {
                out.push((ready, it.data));
                if it.events & EPOLLONESHOT != 0 {
                    it.disabled = true;
                }
            }
        }
        out
    }
}
