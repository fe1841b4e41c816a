//! epoll: the interest list of an epoll instance and its ready list.
//! A readiness change of a file queues its watches on the ready lists of
//! the instances watching it (pollhub.rs); epoll_wait takes entries off the
//! ready list, re-checks each file and reports edge-triggered, level-
//! triggered and one-shot interest as Linux does, putting level-triggered
//! entries that are still ready back on the list. A wait costs O(ready),
//! not O(watched): Go's netpoller has every socket in one instance.

use super::fd::OpenFile;
use super::file::File;
use super::pollhub::{PollHub, Ready, Watch, GLOBAL};
use crate::sched::wait::WaitQueue;
use alloc::collections::BTreeMap;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use gometal_core::linux::errno::{Errno, EBADF, EEXIST, EINVAL, ENOENT, ENOMEM, ENOSPC, EPERM};
use crate::sync::{Lock, LockClass};

pub const EPOLLIN: u32 = 0x1;
pub const EPOLLOUT: u32 = 0x4;
pub const EPOLLERR: u32 = 0x8;
pub const EPOLLHUP: u32 = 0x10;
pub const EPOLLRDHUP: u32 = 0x2000;
pub const EPOLLONESHOT: u32 = 1 << 30;

pub const EPOLL_CTL_ADD: usize = 1;
pub const EPOLL_CTL_DEL: usize = 2;
pub const EPOLL_CTL_MOD: usize = 3;

/// Threads in epoll_pwait.
pub static POLL_WAITERS: WaitQueue = WaitQueue::new();

/// Bumped at every readiness change of a file without a counter of its own.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Called after a change that may make a file without a hub of its own
/// ready (console input, a UIO interrupt).
pub fn notify() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
    GLOBAL.notify();
}


/// The counter of files without one of their own (`File::poll`'s default).
pub fn global_generation() -> u64 {
    GENERATION.load(Ordering::Acquire)
}

/// EPOLLIN and EPOLLOUT as a file's state says.
pub fn in_out(readable: bool, writable: bool) -> u32 {
    (if readable { EPOLLIN } else { 0 }) | if writable { EPOLLOUT } else { 0 }
}

struct Interest {
    events: u32,
    data: u64,
    /// Not a strong reference: closing the last descriptor of a file ends
    /// its registration, as on Linux (the close queues the watch, and the
    /// next wait finds the file gone and drops it).
    file: Weak<OpenFile>,
    /// Where the watch is registered (kept: the file may go first).
    hub: PollHub,
    watch: Arc<Watch>,
    /// For edge-triggered interest: the file's counter when last reported.
    reported_at: Option<u64>,
    disabled: bool,
}

pub struct Epoll {
    interest: Lock<BTreeMap<usize, Interest>>,
    ready: Arc<Ready>,
}

/// Registrations in all epoll instances, and their limit (Linux's
/// max_user_watches): each costs kernel heap (a map entry, a watch, room
/// on the ready list), so a program adding watches in a loop gets ENOSPC
/// instead of exhausting the heap.
static WATCHES: AtomicUsize = AtomicUsize::new(0);

/// Heap bytes a watch is counted at (its share of a B-tree node, the
/// Interest, the Watch and its hub and ready-list slots), and the share of
/// the heap all watches together may use.
const WATCH_COST: usize = 192;
const WATCH_HEAP_SHARE: usize = 8;

pub fn max_watches() -> usize {
    crate::mm::heap::total() / WATCH_HEAP_SHARE / WATCH_COST
}

static WATCHES_PEAK: AtomicUsize = AtomicUsize::new(0);

/// The most watches registered at once, for the statistics.
pub fn watches_peak() -> usize {
    WATCHES_PEAK.load(Ordering::Relaxed)
}

fn forget_watches(n: usize) {
    WATCHES.fetch_sub(n, Ordering::Relaxed);
}

/// Ends a registration: off its hub and off the ready list.
fn unregister(ready: &Ready, it: Interest) {
    it.hub.hub().remove(&it.watch);
    ready.forget(&it.watch);
    forget_watches(1);
}

impl Drop for Epoll {
    fn drop(&mut self) {
        let map = core::mem::take(&mut *self.interest.lock());
        for (_, it) in map {
            unregister(&self.ready, it);
        }
        self.ready.clear();
    }
}

impl Epoll {
    pub fn new() -> Self {
        Epoll { interest: Lock::new(LockClass::EpollInterest, BTreeMap::new()), ready: Ready::new() }
    }

    /// The threads waiting in this instance's epoll_wait.
    pub fn waiters(&self) -> &crate::sched::wait::WaitQueue {
        &self.ready.waiters
    }

    pub fn control(&self, op: usize, fd: usize, file: Arc<OpenFile>, events: u32, data: u64) -> Result<(), Errno> {
        // As Linux: regular files and directories are always ready.
        let Some(hub) = file.poll_hub() else { return Err(EPERM) };
        let mut map = self.interest.lock();
        // A registration whose file was closed (and the number reused)
        // without EPOLL_CTL_DEL is gone, as on Linux.
        if map.get(&fd).is_some_and(|it| !it.file.ptr_eq(&Arc::downgrade(&file))) {
            if let Some(old) = map.remove(&fd) {
                unregister(&self.ready, old);
            }
        }
        if op != EPOLL_CTL_DEL {
            let existing = if op == EPOLL_CTL_MOD { map.get(&fd).map(|it| it.events) } else { None };
            if !gometal_core::fs::epollmask::exclusive_ok(op == EPOLL_CTL_ADD, events, existing)
                || (events & gometal_core::fs::epollmask::EPOLLEXCLUSIVE != 0 && file.downcast::<Epoll>().is_some())
            {
                return Err(EINVAL);
            }
        }
        match op {
            EPOLL_CTL_ADD if map.contains_key(&fd) => Err(EEXIST),
            EPOLL_CTL_ADD => {
                let limit = max_watches();
                WATCHES.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| (w < limit).then_some(w + 1)).map_err(|_| ENOSPC)?;
                WATCHES_PEAK.fetch_max(WATCHES.load(Ordering::Relaxed), Ordering::Relaxed);
                let watch = Watch::new(&self.ready, fd);
                let added = self.ready.reserve(map.len() + 1).and_then(|()| hub.hub().add(watch.clone()));
                if let Err(e) = added {
                    forget_watches(1);
                    return Err(e);
                }
                let file = Arc::downgrade(&file);
                map.insert(fd, Interest { events, data, file, hub, watch: watch.clone(), reported_at: None, disabled: false });
                drop(map);
                // A file added while already ready is reported at once.
                watch.enqueue();
                Ok(())
            }
            EPOLL_CTL_MOD => {
                let it = map.get_mut(&fd).ok_or(ENOENT)?;
                it.events = events;
                it.data = data;
                it.reported_at = None;
                it.disabled = false;
                let watch = it.watch.clone();
                drop(map);
                watch.enqueue(); // re-armed: look at it again
                Ok(())
            }
            EPOLL_CTL_DEL => {
                let it = map.remove(&fd).ok_or(ENOENT)?;
                drop(map);
                unregister(&self.ready, it);
                Ok(())
            }
            _ => Err(EINVAL),
        }
    }

    /// Ready (events, data) pairs, at most `max`, taken off the ready list;
    /// ENOMEM when the heap cannot hold the answer.
    pub fn collect(&self, max: usize) -> Result<Vec<(u32, u64)>, Errno> {
        use gometal_core::fs::epollmask::{is_level, report};
        let mut out = Vec::new();
        // Level-triggered entries still ready go back on the list after
        // this pass (not during it: the pass would find them again).
        let mut again: Vec<Arc<Watch>> = Vec::new();
        out.try_reserve(max).map_err(|_| ENOMEM)?;
        again.try_reserve(max).map_err(|_| ENOMEM)?;
        {
            let mut map = self.interest.lock();
            while out.len() < max {
                let Some(w) = self.ready.pop() else { break };
                let Some(it) = map.get_mut(&w.fd) else { continue };
                if !Arc::ptr_eq(&it.watch, &w) {
                    continue; // an entry of a registration since removed
                }
                let Some(file) = it.file.upgrade() else {
                    if let Some(it) = map.remove(&w.fd) {
                        unregister(&self.ready, it);
                    }
                    continue;
                };
                if it.disabled {
                    continue;
                }
                let (state, generation) = file.poll(&file);
                let Some(ready) = report(it.events, state, &mut it.reported_at, generation) else { continue };
                out.push((ready, it.data));
                if it.events & EPOLLONESHOT != 0 {
                    it.disabled = true;
                } else if is_level(it.events) {
                    again.push(w);
                }
            }
        }
        for w in &again {
            w.enqueue();
        }
        Ok(out)
    }
}

/// An epoll instance as a file: epoll_ctl and epoll_pwait (linux/poll.rs)
/// work on it; it has no bytes, and in another instance it reads as
/// always ready.
impl File for Epoll {
    fn read(&self, _: &OpenFile, _: &mut [u8], _: Option<u64>) -> Result<usize, Errno> {
        Err(EBADF)
    }

    fn write(&self, _: &OpenFile, _: &[u8], _: Option<u64>) -> Result<usize, Errno> {
        Err(EBADF)
    }

    fn poll_hub(&self) -> Option<PollHub> {
        Some(PollHub::Global)
    }
}
