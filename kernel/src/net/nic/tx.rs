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
use crate::mm::uaccess::{UserSlice, UserSpace};
use crate::net::watchers::Watchers;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use gometal_core::linux::errno::{Errno, ECONNRESET, EPIPE};
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
    /// Writers blocked here, and the program's socket's epoll.
    pub watchers: Watchers,
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
            watchers: Watchers::new(),
        }
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
            self.watchers.changed();
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
        self.watchers.wait(nonblock, deadline, || self.put(&mut src))
    }

    /// write(2) from the program's buffer `buf`: only the part the program
    /// may read is taken (EFAULT when none is).
    pub fn write_user(&self, user: &mut UserSpace, buf: UserSlice, nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        let buf = user.usable_prefix(buf, MAX_WRITE, false)?;
        if buf.len() == 0 {
            return Ok(0);
        }
        let mut src = Src::User(user, buf);
        self.watchers.wait(nonblock, deadline, || self.put(&mut src))
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
            Src::User(user, buf) => super::usercopy::from_user(s, user, *buf),
        };
        self.room.store(s.send_capacity() - s.send_queue(), Ordering::Release);
        drop(set);
        match got {
            Ok(0) => None,
            Ok(n) => {
                self.watchers.bump();
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
        self.watchers.changed();
    }
}
