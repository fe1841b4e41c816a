//! epoll: the interest list of an epoll instance and readiness polling.
//! Every readiness change anywhere wakes all epoll waiters, which re-scan
//! their (short) interest lists: simple, and a Go program has one epoll
//! instance with a handful of descriptors.

use super::fd::{FileKind, OpenFile};
use super::inode::Device;
use crate::sched::wait::WaitQueue;
use alloc::collections::BTreeMap;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use gometal_core::errno::{Errno, EEXIST, ENOENT, ENOSPC, EPERM};
use spin::Mutex;

pub const EPOLLIN: u32 = 0x1;
pub const EPOLLOUT: u32 = 0x4;
pub const EPOLLERR: u32 = 0x8;
pub const EPOLLHUP: u32 = 0x10;
pub const EPOLLRDHUP: u32 = 0x2000;
pub const EPOLLONESHOT: u32 = 1 << 30;
pub const EPOLLET: u32 = 1 << 31;

pub const EPOLL_CTL_ADD: usize = 1;
pub const EPOLL_CTL_DEL: usize = 2;
pub const EPOLL_CTL_MOD: usize = 3;

/// Threads in epoll_pwait.
pub static POLL_WAITERS: WaitQueue = WaitQueue::new();

/// Bumped at every readiness change of a file without a counter of its own.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Called after any change that may make a file ready.
pub fn notify() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
    POLL_WAITERS.wake_all();
}

fn bits(readable: bool, writable: bool) -> u32 {
    (if readable { EPOLLIN } else { 0 }) | if writable { EPOLLOUT } else { 0 }
}

/// The readiness of a file as epoll event bits, and a counter that changes
/// whenever its state may have (edge-triggered interest reports a ready
/// file again only after the counter moved: new data arrived).
pub fn readiness(file: &OpenFile) -> (u32, u64) {
    let global = GENERATION.load(Ordering::Acquire);
    match &file.kind {
        FileKind::Device(Device::Console) => (bits(crate::console::input_ready(), true), global),
        FileKind::Device(Device::Stdio(n)) => {
            let s = crate::stdio::Stream::from_fd(*n as usize);
            (bits(s == crate::stdio::Stream::In && crate::stdio::readable(s), s != crate::stdio::Stream::In), global)
        }
        FileKind::EventFd(e) => (bits(e.readable(), e.writable()), global),
        FileKind::Pipe(p) => {
            let (r, w) = (file.readable(), file.writable());
            let hup = if r && p.hung_up_for_reader() { EPOLLHUP } else { 0 };
            let err = if w && p.broken_for_writer() { EPOLLERR } else { 0 };
            (bits(r && p.readable(), w && p.writable()) | hup | err, p.generation.load(Ordering::Acquire))
        }
        FileKind::Socket(s) => s.readiness(),
        FileKind::Uio(u) => {
            let (readable, generation) = u.readiness();
            (bits(readable, true), generation)
        }
        _ => (EPOLLIN | EPOLLOUT, global),
    }
}

struct Interest {
    events: u32,
    data: u64,
    /// Not a strong reference: closing the last descriptor of a file ends
    /// its registration, as on Linux.
    file: Weak<OpenFile>,
    /// For edge-triggered interest: the file's counter when last reported.
    reported_at: Option<u64>,
    disabled: bool,
}

pub struct Epoll {
    interest: Mutex<BTreeMap<usize, Interest>>,
}

/// Registrations in all epoll instances, and their limit (Linux's
/// max_user_watches): each costs kernel heap (a map entry), so a program
/// adding watches in a loop gets ENOSPC instead of exhausting the heap.
static WATCHES: AtomicUsize = AtomicUsize::new(0);

/// Heap bytes a watch is counted at (its share of a B-tree node and the
/// Interest), and the share of the heap all watches together may use.
const WATCH_COST: usize = 128;
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

impl Drop for Epoll {
    fn drop(&mut self) {
        forget_watches(self.interest.lock().len());
    }
}

impl Epoll {
    pub fn new() -> Self {
        Epoll { interest: Mutex::new(BTreeMap::new()) }
    }

    pub fn control(&self, op: usize, fd: usize, file: Arc<OpenFile>, events: u32, data: u64) -> Result<(), Errno> {
        if matches!(file.kind, FileKind::File(_) | FileKind::Directory(_)) {
            return Err(EPERM); // as Linux: regular files are always ready
        }
        let mut map = self.interest.lock();
        match op {
            EPOLL_CTL_ADD if map.contains_key(&fd) => Err(EEXIST),
            EPOLL_CTL_ADD | EPOLL_CTL_MOD => {
                if op == EPOLL_CTL_MOD && !map.contains_key(&fd) {
                    return Err(ENOENT);
                }
                if op == EPOLL_CTL_ADD {
                    let limit = max_watches();
                    WATCHES.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| (w < limit).then_some(w + 1)).map_err(|_| ENOSPC)?;
                    WATCHES_PEAK.fetch_max(WATCHES.load(Ordering::Relaxed), Ordering::Relaxed);
                }
                let file = Arc::downgrade(&file);
                map.insert(fd, Interest { events, data, file, reported_at: None, disabled: false });
                Ok(())
            }
            EPOLL_CTL_DEL => {
                map.remove(&fd).ok_or(ENOENT)?;
                forget_watches(1);
                Ok(())
            }
            _ => Err(gometal_core::errno::EINVAL),
        }
    }

    /// Ready (events, data) pairs, at most `max`.
    pub fn collect(&self, max: usize) -> Vec<(u32, u64)> {
        let mut out = Vec::new();
        let mut map = self.interest.lock();
        let before = map.len();
        map.retain(|_, it| it.file.strong_count() > 0);
        forget_watches(before - map.len());
        for it in map.values_mut() {
            if out.len() == max {
                break;
            }
            let Some(file) = it.file.upgrade() else { continue };
            if it.disabled {
                continue;
            }
            let (state, generation) = readiness(&file);
            let ready = state & (it.events | EPOLLERR | EPOLLHUP);
            if ready == 0 {
                continue;
            }
            if it.events & EPOLLET != 0 {
                if it.reported_at == Some(generation) {
                    continue;
                }
                it.reported_at = Some(generation);
            }
            out.push((ready, it.data));
            if it.events & EPOLLONESHOT != 0 {
                it.disabled = true;
            }
        }
        out
    }
}
