//! The receive direction of a TCP connection through the NIC: a program's
//! read copies straight out of the connection's smoltcp receive buffer,
//! under its socket set's lock (shard.rs), into the program's memory
//! (`read_user`, read(2) and readv) or a kernel buffer (`read`: recvfrom,
//! recvmsg, splice). There is no pipe in between and no pump: a received
//! byte is copied from the device's buffer into smoltcp's and from there
//! to the program, once each.
//!
//! What a pipe did besides holding bytes lives here as a few words the
//! poll keeps up to date under the set's lock (tcp.rs calls `note` after
//! each step of the set): how many bytes smoltcp holds (readiness, epoll
//! and FIONREAD without the lock), whether the remote's FIN or reset came
//! (end of file after those bytes; the reset itself is stream.rs's Link),
//! and whether the program's end is closed (then arriving data resets the
//! connection, as Linux does). Readers sleep on `watchers` (net/watchers.rs); the poll wakes
//! them and the socket's epoll hubs when bytes arrive.
//!
//! A read never polls the NIC: it marks its set (the window it opened goes
//! out with the next segment or poll), and when it took the buffer from
//! more than half full to half or less (the sender may be waiting for that
//! window) it has the NIC's timer event poll from this CPU's next timer
//! interrupt (nic::room, `window_opened`).

use super::shard;
use crate::mm::uaccess::{UserSlice, UserSpace};
use crate::net::watchers::Watchers;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use gometal_core::linux::errno::Errno;
use smoltcp::iface::SocketHandle;
use smoltcp::socket::tcp;

/// The most one read(2) copies straight to the program (smoltcp's largest
/// receive buffer, buffers.rs's BIG_BYTES).
pub const MAX_READ: usize = super::buffers::BIG_BYTES;

pub struct NicRx {
    shard: usize,
    handle: SocketHandle,
    /// smoltcp's socket is removed (written under the set's lock): the
    /// handle may name another connection's socket now.
    gone: AtomicBool,
    /// Bytes smoltcp held at the last look (a poll's or a read's).
    queued: AtomicUsize,
    /// The remote's FIN (or reset) came: after what smoltcp holds, end of
    /// file. Also set when the far end goes (the connection is dropped).
    eof: AtomicBool,
    /// The program's end is closed: nobody reads any more.
    reader_gone: AtomicBool,
    /// Readers blocked here, and the program's socket's epoll.
    pub watchers: Watchers,
}

/// Where a read's bytes go.
enum Dest<'a> {
    Kernel(&'a mut [u8]),
    User(&'a mut UserSpace, UserSlice),
}

impl NicRx {
    pub fn new(shard: usize, handle: SocketHandle) -> NicRx {
        NicRx {
            shard,
            handle,
            gone: AtomicBool::new(false),
            queued: AtomicUsize::new(0),
            eof: AtomicBool::new(false),
            reader_gone: AtomicBool::new(false),
            watchers: Watchers::new(),
        }
    }

    /// After a step of the set (its lock held): what smoltcp holds now;
    /// readers and epoll hear of new bytes.
    pub fn note(&self, s: &tcp::Socket) {
        let now = s.recv_queue();
        if self.queued.swap(now, Ordering::AcqRel) < now {
            self.watchers.changed();
        }
    }

    /// smoltcp's socket is about to be removed (the set's lock held).
    pub fn remove(&self) {
        self.gone.store(true, Ordering::Release);
        self.queued.store(0, Ordering::Release);
        self.eof.store(true, Ordering::Release);
        self.watchers.changed();
    }

    /// Reads into a kernel buffer, waiting (unless `nonblock`) no later
    /// than `deadline`; 0 at end of file.
    pub fn read(&self, buf: &mut [u8], nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        if buf.is_empty() {
            return Ok(0);
        }
        let mut dest = Dest::Kernel(buf);
        self.watchers.wait(nonblock, deadline, || self.take(&mut dest))
    }

    /// read(2) into the program's buffer `buf`: only the part the program
    /// may write is filled (EFAULT when none is), nothing is consumed that
    /// could not be copied.
    pub fn read_user(&self, user: &mut UserSpace, buf: UserSlice, nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        let buf = user.usable_prefix(buf, MAX_READ, true)?;
        if buf.len() == 0 {
            return Ok(0);
        }
        let mut dest = Dest::User(user, buf);
        self.watchers.wait(nonblock, deadline, || self.take(&mut dest))
    }

    /// One look: Some(bytes copied), Some(0) at end of file, None when
    /// nothing has come yet.
    fn take(&self, dest: &mut Dest) -> Option<Result<usize, Errno>> {
        let mut set = shard::set(self.shard).lock();
        if self.gone.load(Ordering::Acquire) {
            return self.eof.load(Ordering::Acquire).then_some(Ok(0));
        }
        let s = set.sockets.get_mut::<tcp::Socket>(self.handle);
        let (before, capacity) = (s.recv_queue(), s.recv_capacity());
        if before == 0 {
            drop(set);
            return self.eof.load(Ordering::Acquire).then_some(Ok(0));
        }
        let got = match dest {
            Dest::Kernel(buf) => Ok(s.recv_slice(buf).unwrap_or(0)),
            Dest::User(user, buf) => super::usercopy::to_user(s, user, *buf),
        };
        let after = s.recv_queue();
        self.queued.store(after, Ordering::Release);
        drop(set);
        if let Ok(n) = got {
            if n == 0 {
                return None;
            }
            self.watchers.bump();
            shard::mark(self.shard); // the window update goes out with the next poll
            if window_opened(before, after, capacity) {
                super::stats::WINDOW_LOW.add(1);
                super::room(self.shard); // the sender may wait for it: poll soon
            }
        }
        Some(got)
    }

    /// A copy of what has come, without taking it (MSG_PEEK).
    pub fn peek(&self, buf: &mut [u8]) -> usize {
        let mut set = shard::set(self.shard).lock();
        if self.gone.load(Ordering::Acquire) {
            return 0;
        }
        set.sockets.get_mut::<tcp::Socket>(self.handle).peek_slice(buf).unwrap_or(0)
    }

    /// Never written by the program; for Channel's one interface.
    pub fn writable(&self) -> bool {
        false
    }

    pub fn readable(&self) -> bool {
        self.len() > 0 || self.hung_up_for_reader()
    }

    pub fn hung_up_for_reader(&self) -> bool {
        self.eof.load(Ordering::Acquire)
    }

    pub fn broken_for_writer(&self) -> bool {
        self.reader_gone.load(Ordering::Acquire)
    }

    /// Bytes a read would get now (as of the last look).
    pub fn len(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }

    /// The far end (the NIC's side) closing is end of file; the program's
    /// end closing means nobody reads any more (the set is marked by
    /// stream.rs, so the next poll sees it).
    pub fn close_end(&self, write_end: bool) {
        if write_end {
            self.eof.store(true, Ordering::Release);
        } else {
            self.reader_gone.store(true, Ordering::Release);
        }
        self.watchers.changed();
    }
}

/// Whether a read that left `after` of `before` queued bytes (of
/// `capacity`) opened the window enough that the sender, which may be
/// waiting for it, should hear now: when it took the buffer from more than
/// half full to half or less. Smaller steps go out with the next segment
/// or poll, as Linux sends a window update on a read only when the window
/// at least doubles; a poll for every small read (Go's io.Copy to
/// io.Discard reads 8 KiB at a time) cost a poll per read and held host →
/// guest streams to a fifth of what 64 KiB reads got.
fn window_opened(before: usize, after: usize, capacity: usize) -> bool {
    before * 2 > capacity && after * 2 <= capacity
}
