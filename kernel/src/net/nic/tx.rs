//! The send direction of a TCP connection through the NIC: a program's
//! write copies straight into the connection's smoltcp send buffer, under
//! its socket set's lock (shard.rs), from the program's memory
//! (`write_user`, write(2) and writev) or a kernel buffer (`write`:
//! sendto, sendmsg, splice). So a sent byte is copied from the program
//! into smoltcp's buffer and from there into the device's, once each; the
//! writer then asks for a poll (net/data.rs's kick), which sends it.
//!
//! As rx.rs does for reading, a few words kept under the set's lock stand
//! for what the pipe was: the room smoltcp's buffer has (writability,
//! `note`ed by the poll after each step, which wakes writers and epoll
//! when a quarter of the buffer is free again, as acknowledgements come),
//! whether the program shut down writing (the poll then sends the FIN
//! after what the buffer holds) and whether the connection is over.

use super::shard;
use crate::fs::pollhub::{notify_linked, Hub};
use crate::mm::uaccess::{UserSlice, UserSpace};
use crate::sched::wait::WaitQueue;
use crate::sync::{Lock, LockClass};
use alloc::sync::Arc;
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use gometal_core::errno::{Errno, EAGAIN, ECONNRESET, EFAULT, EPIPE};
use smoltcp::iface::SocketHandle;
use smoltcp::socket::tcp::{self, State};

/// The most one write(2) copies straight from the program.
pub const MAX_WRITE: usize = super::buffers::BIG_BYTES;

pub struct NicTx {
    shard: usize,
    handle: SocketHandle,
    /// The connection is over and smoltcp's socket removed (or about to
    /// be): writes fail, and the handle may name another socket now.
    gone: AtomicBool,
    /// Free bytes in smoltcp's send buffer at the last look, and its size.
    room: AtomicUsize,
    capacity: usize,
    /// The program shut down writing or closed: FIN after the buffer.
    closing: AtomicBool,
    waiters: WaitQueue,
    /// Bumped at every change, for edge-triggered epoll.
    pub generation: AtomicU64,
    /// The hub of the program's socket (stream.rs links it).
    pub linked: Lock<[Option<Arc<Hub>>; 2]>,
}

/// Where a write's bytes come from.
enum Src<'a> {
    Kernel(&'a [u8]),
    User(&'a mut UserSpace, UserSlice),
}

impl NicTx {
    pub fn new(shard: usize, handle: SocketHandle, capacity: usize) -> NicTx {
        NicTx {
            shard,
            handle,
            gone: AtomicBool::new(false),
            room: AtomicUsize::new(capacity),
            capacity: capacity.max(1),
            closing: AtomicBool::new(false),
            waiters: WaitQueue::new(),
            generation: AtomicU64::new(0),
            linked: Lock::new(LockClass::PollLinks, [None, None]),
        }
    }

    fn changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.waiters.wake_all();
        notify_linked(&self.linked);
    }

    fn roomy(&self, room: usize) -> bool {
        room * 4 >= self.capacity
    }

    /// After a step of the set (its lock held): the room smoltcp's buffer
    /// has now; writers and epoll hear when it becomes writable again.
    pub fn note(&self, s: &tcp::Socket) {
        let now = s.send_capacity() - s.send_queue();
        let before = self.room.swap(now, Ordering::AcqRel);
        if self.roomy(now) && !self.roomy(before) {
            self.changed();
        }
    }

    /// The connection is over: smoltcp's socket is about to be removed
    /// (the set's lock held).
    pub fn remove(&self) {
        self.close_end(false);
    }

    /// Whether the program shut down writing (the poll sends the FIN).
    pub fn closing(&self) -> bool {
        self.closing.load(Ordering::Acquire)
    }

    /// Never read by the program; for Channel's one interface.
    pub fn readable(&self) -> bool {
        false
    }

    pub fn peek(&self, _: &mut [u8]) -> usize {
        0
    }

    pub fn len(&self) -> usize {
        0
    }

    /// The NIC's side sees end of file once the program shut down writing.
    pub fn hung_up_for_reader(&self) -> bool {
        self.closing()
    }


    /// Writes some of `data` from a kernel buffer, waiting (unless
    /// `nonblock`) no later than `deadline` for room.
    pub fn write(&self, data: &[u8], nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        let mut src = Src::Kernel(data);
        self.wait(nonblock, deadline, || self.put(&mut src))
    }

    /// write(2) from the program's buffer `buf`: only the part the program
    /// may read is taken (EFAULT when none is).
    pub fn write_user(&self, user: &mut UserSpace, buf: UserSlice, nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        let buf = buf.prefix(MAX_WRITE);
        if buf.len() == 0 {
            return Ok(0);
        }
        let room = user.accessible_prefix(buf, false)?;
        if room == 0 {
            return Err(EFAULT);
        }
        let mut src = Src::User(user, buf.prefix(room));
        self.wait(nonblock, deadline, || self.put(&mut src))
    }

    fn wait(&self, nonblock: bool, deadline: Option<u64>, mut put: impl FnMut() -> Option<Result<usize, Errno>>) -> Result<usize, Errno> {
        if nonblock {
            return put().unwrap_or(Err(EAGAIN));
        }
        self.waiters.wait_until(deadline, put).map_err(crate::fs::pipe::wait_errno)?
    }

    /// One try: Some(bytes taken) or an error, None when there is no room.
    fn put(&self, src: &mut Src) -> Option<Result<usize, Errno>> {
        let mut set = shard::set(self.shard).lock();
        if self.gone.load(Ordering::Acquire) {
            return Some(Err(EPIPE));
        }
        let s = set.sockets.get_mut::<tcp::Socket>(self.handle);
        if !s.may_send() {
            // Closed without our FIN: the remote reset it (or it timed out).
            return Some(Err(if s.state() == State::Closed { ECONNRESET } else { EPIPE }));
        }
        let got = match src {
            Src::Kernel(data) => Ok(s.send_slice(data).unwrap_or(0)),
            Src::User(user, buf) => from_user(s, user, *buf),
        };
        self.room.store(s.send_capacity() - s.send_queue(), Ordering::Release);
        drop(set);
        match got {
            Ok(0) => None,
            Ok(n) => {
                self.generation.fetch_add(1, Ordering::AcqRel);
                Some(Ok(n))
            }
            Err(e) => Some(Err(e)),
        }
    }

    /// A quarter of the buffer free, or the connection over (a write then
    /// fails at once, as a pipe with no reader is writable).
    pub fn writable(&self) -> bool {
        self.roomy(self.room.load(Ordering::Acquire)) || self.broken_for_writer()
    }

    /// The connection is over (the NIC's end dropped it).
    pub fn broken_for_writer(&self) -> bool {
        self.gone.load(Ordering::Acquire)
    }

    /// The program's end closing its writing is the FIN (sent by the next
    /// poll: stream.rs marks the set); the NIC's end closing means the
    /// connection is over.
    pub fn close_end(&self, write_end: bool) {
        if write_end {
            self.closing.store(true, Ordering::Release);
        } else {
            self.gone.store(true, Ordering::Release);
        }
        self.changed();
    }
}

/// Copies the program's `buf` into smoltcp's free room (at most two
/// pieces: the ring may wrap); a fault after some bytes ends it short.
fn from_user(s: &mut tcp::Socket, user: &mut UserSpace, buf: UserSlice) -> Result<usize, Errno> {
    let mut done = 0;
    while done < buf.len() {
        let r = s.send(|free| {
            let n = free.len().min(buf.len() - done);
            match user.read_into(buf.skip(done).prefix(n), &mut free[..n]) {
                Ok(()) => (n, Ok(n)),
                Err(e) => (0, Err(e)),
            }
        });
        match r {
            Ok(Ok(0)) | Err(_) => break,
            Ok(Ok(n)) => done += n,
            Ok(Err(e)) if done == 0 => return Err(e),
            Ok(Err(_)) => break,
        }
    }
    Ok(done)
}
