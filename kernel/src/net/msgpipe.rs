//! One direction of an AF_UNIX SOCK_SEQPACKET connection: like a pipe, but
//! each write is one message, queued whole or not at all, and each read
//! takes one message (the part that does not fit the buffer is dropped, as
//! Linux drops it).

use super::msgbuf::MsgBuf;
use super::watchers::Watchers;
use alloc::collections::VecDeque;
use core::sync::atomic::{AtomicBool, Ordering};
use gometal_core::linux::errno::{Errno, EMSGSIZE, EPIPE};
use crate::sync::{Lock, LockClass};

/// What the queue holds at most (the default socket buffer, 212,992).
const CAPACITY: usize = 212_992;

pub struct MsgPipe {
    /// The messages and their total size.
    queue: Lock<(VecDeque<MsgBuf>, usize)>,
    reader_open: AtomicBool,
    writer_open: AtomicBool,
    /// Blocked readers and writers, and the two sockets' epoll.
    pub watchers: Watchers,
}

impl MsgPipe {
    pub fn new() -> Self {
        MsgPipe {
            queue: Lock::new(LockClass::MessageQueue, (VecDeque::new(), 0)),
            reader_open: AtomicBool::new(true),
            writer_open: AtomicBool::new(true),
            watchers: Watchers::new(),
        }
    }

    /// Takes the next message into `buf`: its length copied, 0 at end of
    /// file (every writer gone, nothing queued).
    pub fn read(&self, buf: &mut [u8], nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        let take = || {
            let mut q = self.queue.lock();
            match q.0.pop_front() {
                Some(m) => {
                    q.1 -= m.len();
                    let n = m.len().min(buf.len());
                    buf[..n].copy_from_slice(&m[..n]);
                    Some(Ok(n))
                }
                None => (!self.writer_open.load(Ordering::Acquire)).then_some(Ok(0)),
            }
        };
        let n = self.watchers.wait(nonblock, deadline, take)?;
        self.watchers.changed();
        Ok(n)
    }

    /// Copies the next message without taking it (MSG_PEEK).
    pub fn peek(&self, buf: &mut [u8]) -> usize {
        let q = self.queue.lock();
        let Some(m) = q.0.front() else { return 0 };
        let n = m.len().min(buf.len());
        buf[..n].copy_from_slice(&m[..n]);
        n
    }

    /// Queues `data` as one message; EPIPE with no reader, EMSGSIZE if it
    /// could never fit.
    pub fn write(&self, data: &[u8], nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        if data.len() > CAPACITY {
            return Err(EMSGSIZE);
        }
        let put = || {
            if !self.reader_open.load(Ordering::Acquire) {
                return Some(Err(EPIPE));
            }
            let mut q = self.queue.lock();
            if q.1 + data.len() > CAPACITY {
                return None;
            }
            match MsgBuf::copy_of(data) {
                Ok(m) => q.0.push_back(m),
                Err(e) => return Some(Err(e)),
            }
            q.1 += data.len();
            Some(Ok(data.len()))
        };
        let n = self.watchers.wait(nonblock, deadline, put)?;
        self.watchers.changed();
        Ok(n)
    }

    pub fn readable(&self) -> bool {
        !self.queue.lock().0.is_empty() || !self.writer_open.load(Ordering::Acquire)
    }

    pub fn writable(&self) -> bool {
        self.queue.lock().1 < CAPACITY || !self.reader_open.load(Ordering::Acquire)
    }

    pub fn hung_up_for_reader(&self) -> bool {
        !self.writer_open.load(Ordering::Acquire)
    }

    pub fn broken_for_writer(&self) -> bool {
        !self.reader_open.load(Ordering::Acquire)
    }

    /// The size of the next message (FIONREAD).
    pub fn len(&self) -> usize {
        self.queue.lock().0.front().map_or(0, |m| m.len())
    }

    pub fn close_end(&self, write_end: bool) {
        let end = if write_end { &self.writer_open } else { &self.reader_open };
        end.store(false, Ordering::Release);
        self.watchers.changed();
    }
}
