//! Pipes (pipe2): a bounded byte buffer between a read end and a write end.
//! Readers block until data arrives or every write end is closed (end of
//! file); writers block while the buffer is full and get EPIPE (and SIGPIPE)
//! once every read end is closed.
//!
//! The buffer lives on the kernel heap, so it is allocated as data arrives
//! (fallibly) and given back when a read drains it: an idle pipe costs only
//! its bookkeeping. All pipe buffers together may use a share of the heap
//! (`budget`); past it a pipe holds one page at most, like Linux's pipes
//! beyond pipe-user-pages-soft. pipefile.rs makes a pipe's ends files.

use super::pollhub::{notify_linked, Hub};
use crate::sched::wait::WaitQueue;
use alloc::sync::Arc;
use alloc::collections::VecDeque;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use gometal_core::linux::errno::{Errno, EAGAIN, EINTR, ENOMEM, EPIPE};
use crate::sync::{Lock, LockClass};

/// Linux's default pipe capacity.
pub const CAPACITY: usize = 64 * 1024;

/// What a pipe may hold once the budget is spent (Linux: one page).
const SMALL_CAPACITY: usize = 4096;

/// The share of the kernel heap all pipe buffers may use together.
const HEAP_SHARE: usize = 4;

/// Heap bytes reserved by all pipe buffers, for the budget and the stats.
static BUFFER_BYTES: AtomicUsize = AtomicUsize::new(0);
static BUFFER_PEAK: AtomicUsize = AtomicUsize::new(0);

fn buffer_bytes() -> usize {
    BUFFER_BYTES.load(Ordering::Relaxed)
}

/// The most heap all pipe buffers held at once, for the statistics.
pub fn buffer_peak() -> usize {
    BUFFER_PEAK.load(Ordering::Relaxed)
}

fn budget() -> usize {
    crate::mm::heap::total() / HEAP_SHARE
}

/// Makes room in `b` for up to `want` more bytes within the pipe's
/// capacity; returns how many fit (0 when the heap or the budget is out).
fn grow(b: &mut VecDeque<u8>, want: usize) -> usize {
    let room_now = b.capacity() - b.len();
    if room_now >= want || b.len() >= CAPACITY {
        return room_now.min(CAPACITY - b.len()).min(want);
    }
    let target = (b.len() + want).next_power_of_two().min(CAPACITY);
    let limit = if buffer_bytes() + target.saturating_sub(b.capacity()) <= budget() { CAPACITY } else { SMALL_CAPACITY };
    let target = target.min(limit).max(b.capacity());
    let before = b.capacity();
    if target > before && b.try_reserve_exact(target - b.len()).is_ok() {
        let now = BUFFER_BYTES.fetch_add(b.capacity() - before, Ordering::Relaxed) + b.capacity() - before;
        BUFFER_PEAK.fetch_max(now, Ordering::Relaxed);
    }
    (b.capacity().min(CAPACITY) - b.len()).min(want)
}

/// Gives a drained buffer's memory back.
fn release(b: &mut VecDeque<u8>) {
    BUFFER_BYTES.fetch_sub(b.capacity(), Ordering::Relaxed);
    *b = VecDeque::new();
}

pub struct Pipe {
    buffer: Lock<VecDeque<u8>>,
    readers: AtomicUsize,
    writers: AtomicUsize,
    waiters: WaitQueue,
    /// Bumped at every change, for edge-triggered epoll.
    pub generation: AtomicU64,
    /// The epoll watches on the pipe's own ends (pipe2, FIFOs).
    pub hub: Arc<Hub>,
    /// The hubs of the sockets whose connection this pipe carries (the
    /// reading end's, the writing end's): a change here is a readiness
    /// change of those sockets (net/stream.rs links them).
    pub linked: Lock<[Option<Arc<Hub>>; 2]>,
}

impl Pipe {
    /// A pipe with one read and one write end (pipe2), or None when the
    /// kernel heap cannot hold its buffer.
    pub fn new() -> Option<Self> {
        Self::with_ends(1, 1)
    }

    /// A named pipe (FIFO): no ends until opened.
    pub fn new_named() -> Option<Self> {
        Self::with_ends(0, 0)
    }

    fn with_ends(readers: usize, writers: usize) -> Option<Self> {
        Some(Pipe {
            buffer: Lock::new(LockClass::PipeBuffer, VecDeque::new()),
            readers: AtomicUsize::new(readers),
            writers: AtomicUsize::new(writers),
            waiters: WaitQueue::new(),
            generation: AtomicU64::new(0),
            hub: Arc::new(Hub::new()),
            linked: Lock::new(LockClass::PollLinks, [None, None]),
        })
    }

    fn changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.waiters.wake_all();
        self.hub.notify();
        notify_linked(&self.linked);
    }

    /// Reads up to `buf.len()` bytes; 0 means end of file.
    pub fn read(&self, buf: &mut [u8], nonblock: bool) -> Result<usize, Errno> {
        self.read_until(buf, nonblock, None)
    }

    /// `read`, waiting no later than `deadline` (monotonic ns; a socket's
    /// SO_RCVTIMEO): EAGAIN after it.
    pub fn read_until(&self, buf: &mut [u8], nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        let mut take = || {
            let mut b = self.buffer.lock();
            if b.is_empty() {
                return (self.writers.load(Ordering::Acquire) == 0).then_some(0);
            }
            let n = buf.len().min(b.len());
            for (dst, src) in buf.iter_mut().zip(b.drain(..n)) {
                *dst = src;
            }
            if b.is_empty() {
                release(&mut b);
            }
            Some(n)
        };
        let n = if nonblock {
            take().ok_or(EAGAIN)?
        } else {
            self.waiters.wait_until(deadline, take).map_err(wait_errno)?
        };
        if n > 0 {
            self.changed();
        }
        Ok(n)
    }

    /// Writes some of `data` (all of it if it fits); EPIPE with no readers.
    pub fn write(&self, data: &[u8], nonblock: bool) -> Result<usize, Errno> {
        self.write_until(data, nonblock, None)
    }

    /// `write`, waiting no later than `deadline` (SO_SNDTIMEO): EAGAIN after it.
    pub fn write_until(&self, data: &[u8], nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        let put = || {
            if self.readers.load(Ordering::Acquire) == 0 {
                return Some(Err(EPIPE));
            }
            let mut b = self.buffer.lock();
            let n = grow(&mut b, data.len());
            if n == 0 && b.is_empty() && !data.is_empty() {
                return Some(Err(ENOMEM)); // not even one byte fits: no heap
            }
            if n == 0 {
                return None;
            }
            b.extend(&data[..n]);
            Some(Ok(n))
        };
        let n = if nonblock {
            put().unwrap_or(Err(EAGAIN))?
        } else {
            self.waiters.wait_until(deadline, put).map_err(wait_errno)??
        };
        self.changed();
        Ok(n)
    }

    pub fn readable(&self) -> bool {
        !self.buffer.lock().is_empty() || self.writers.load(Ordering::Acquire) == 0
    }

    pub fn writable(&self) -> bool {
        let b = self.buffer.lock();
        b.len() < CAPACITY.min(b.capacity().max(SMALL_CAPACITY)) || self.readers.load(Ordering::Acquire) == 0
    }

    /// Copies the start of the buffer without taking it (MSG_PEEK).
    pub fn peek(&self, buf: &mut [u8]) -> usize {
        let b = self.buffer.lock();
        let n = buf.len().min(b.len());
        for (dst, src) in buf.iter_mut().zip(b.iter()) {
            *dst = *src;
        }
        n
    }

    /// Drops the first `n` bytes (splice, after peek: only what the
    /// receiver took leaves the pipe).
    pub fn consume(&self, n: usize) {
        let mut b = self.buffer.lock();
        let n = n.min(b.len());
        b.drain(..n);
        if b.is_empty() {
            release(&mut b);
        }
        drop(b);
        if n > 0 {
            self.changed();
        }
    }

    /// Waits until there is something to read or no writer is left.
    pub fn wait_readable(&self, nonblock: bool) -> Result<(), Errno> {
        if nonblock {
            return if self.readable() { Ok(()) } else { Err(EAGAIN) };
        }
        self.waiters.wait_until(None, || self.readable().then_some(())).map_err(|_| EINTR)
    }

    /// Free room now (splice into a pipe takes no more than fits).
    pub fn room(&self) -> usize {
        let b = self.buffer.lock();
        CAPACITY.min(b.capacity().max(SMALL_CAPACITY)).saturating_sub(b.len())
    }

    /// Bytes waiting to be read.
    pub fn len(&self) -> usize {
        self.buffer.lock().len()
    }

    pub fn hung_up_for_reader(&self) -> bool {
        self.writers.load(Ordering::Acquire) == 0
    }

    pub fn broken_for_writer(&self) -> bool {
        self.readers.load(Ordering::Acquire) == 0
    }

    /// Opens an end of a named pipe. Like Linux: a reader waits for a
    /// writer (unless non-blocking), a writer waits for a reader, and a
    /// non-blocking writer with no reader gets ENXIO. O_RDWR opens both
    /// ends at once and never waits.
    pub fn open_end(&self, read: bool, write: bool, nonblock: bool) -> Result<(), Errno> {
        if write && !read && nonblock && self.readers.load(Ordering::Acquire) == 0 {
            return Err(gometal_core::linux::errno::ENXIO);
        }
        if read {
            self.readers.fetch_add(1, Ordering::AcqRel);
        }
        if write {
            self.writers.fetch_add(1, Ordering::AcqRel);
        }
        self.changed();
        if nonblock || (read && write) {
            return Ok(());
        }
        let peer = if read { &self.writers } else { &self.readers };
        let waited = self.waiters.wait_until(None, || (peer.load(Ordering::Acquire) > 0).then_some(()));
        if waited.is_err() {
            self.close_end(write);
            return Err(EINTR);
        }
        Ok(())
    }

    pub fn close_end(&self, write_end: bool) {
        let count = if write_end { &self.writers } else { &self.readers };
        count.fetch_sub(1, Ordering::AcqRel);
        self.changed();
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        release(&mut self.buffer.lock());
    }
}

/// The errno of a wait that ended without its condition: EAGAIN when its
/// deadline passed (only sockets' SO_RCVTIMEO/SO_SNDTIMEO set one), EINTR
/// for a signal.
pub fn wait_errno(e: crate::sched::wait::WaitError) -> Errno {
    match e {
        crate::sched::wait::WaitError::TimedOut => EAGAIN,
        crate::sched::wait::WaitError::Interrupted => EINTR,
    }
}
