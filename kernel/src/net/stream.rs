//! Connected streams (TCP on loopback, AF_UNIX stream) and listeners.
//!
//! A connection is two pipes, one per direction: the pipe code already has
//! the bounded buffer, blocking, end-of-file when the writer is gone and
//! EPIPE when the reader is gone, which is exactly a stream's half-close.
//! What a pipe lacks is the reset: a TCP socket closed with unread data
//! makes Linux send RST, and the peer's next read (after what it already
//! has) fails with ECONNRESET. `Link` carries that between the two ends.
//!
//! A TCP connection through the NIC has no pipe: its two directions are
//! smoltcp's receive and send buffers, which the program reads and writes
//! itself (nic/rx.rs, nic/tx.rs); the NIC's end of it only tells them
//! what arrived, what was acknowledged, and how the connection ended.

use super::socket::{stream_bits, Socket, State};
use super::channel::Channel;
use super::nic::rx::NicRx;
use super::nic::tx::NicTx;
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use core::sync::atomic::{AtomicBool, Ordering};
use crate::fs::pipe::wait_errno;
use gometal_core::linux::errno::{Errno, EAGAIN, ECONNRESET, ENOBUFS, EPIPE};
use crate::sync::{Lock, LockClass};

/// What the two ends of a connection share besides the pipes.
struct Link {
    /// reset[i]: end i was reset by its peer.
    reset: [AtomicBool; 2],
}

/// One end of a connected stream.
pub struct Endpoint {
    rx: Channel,
    tx: Channel,
    link: Arc<Link>,
    side: usize,
    /// TCP (resets on close with unread data); AF_UNIX streams do not.
    tcp: bool,
    rd_shut: AtomicBool,
    wr_shut: AtomicBool,
    /// A write already went to a TCP peer that had closed (see write).
    wrote_to_closed: AtomicBool,
    /// Its pipes notify the owning socket's hub (see link).
    linked: AtomicBool,
    /// A program's end of a connection through the NIC: the NIC's socket
    /// set that pumps it (nic/shard.rs), told when this end moves data,
    /// shuts down or closes.
    nic_shard: Option<usize>,
}

impl Endpoint {
    /// The two ends of a new connection; ENOBUFS when the heap is out.
    /// `messages`: AF_UNIX seqpacket (each write one message).
    pub fn pair(tcp: bool, messages: bool) -> Result<(Endpoint, Endpoint), Errno> {
        // A connection holds kernel heap for as long as it lives (its pipes,
        // two sockets, their epoll watches), and the heap has a fixed size:
        // refuse a new one while the heap is within its reserve, so that a
        // program opening 10,000 connections gets ENOBUFS, not a kernel
        // that runs out of memory (an allocation failure is a panic).
        if !crate::mm::heap::has_room() {
            return Err(ENOBUFS);
        }
        let a_to_b = Channel::new(messages)?;
        let b_to_a = Channel::new(messages)?;
        Ok(Self::join(a_to_b, b_to_a, tcp))
    }

    /// The ends of a TCP connection through NIC socket set `shard` whose
    /// smoltcp socket is `handle` with a send buffer of `send_capacity`
    /// bytes: (the program's, the NIC's).
    pub fn nic_pair(shard: usize, handle: smoltcp::iface::SocketHandle, send_capacity: usize) -> Result<(Endpoint, Endpoint), Errno> {
        if !crate::mm::heap::has_room() {
            return Err(ENOBUFS);
        }
        let to_nic = Channel::NicTx(Arc::new(NicTx::new(shard, handle, send_capacity)));
        let from_nic = Channel::NicRx(Arc::new(NicRx::new(shard, handle)));
        let (mut program, nic) = Self::join(to_nic, from_nic, true);
        program.nic_shard = Some(shard);
        Ok((program, nic))
    }

    /// The two ends over directions `a_to_b` and `b_to_a`.
    fn join(a_to_b: Channel, b_to_a: Channel, tcp: bool) -> (Endpoint, Endpoint) {
        let link = Arc::new(Link { reset: [AtomicBool::new(false), AtomicBool::new(false)] });
        let end = |rx: &Channel, tx: &Channel, side| Endpoint {
            rx: rx.clone(),
            tx: tx.clone(),
            link: link.clone(),
            side,
            tcp,
            rd_shut: AtomicBool::new(false),
            wr_shut: AtomicBool::new(false),
            wrote_to_closed: AtomicBool::new(false),
            linked: AtomicBool::new(false),
            nic_shard: None,
        };
        (end(&b_to_a, &a_to_b, 0), end(&a_to_b, &b_to_a, 1))
    }

    /// The receive direction read straight from smoltcp, if this end is
    /// either end of a connection through the NIC.
    pub fn nic_rx(&self) -> Option<&Arc<NicRx>> {
        match (&self.rx, &self.tx) {
            (Channel::NicRx(r), _) | (_, Channel::NicRx(r)) => Some(r),
            _ => None,
        }
    }

    /// The send direction written straight into smoltcp, likewise.
    pub fn nic_tx(&self) -> Option<&Arc<NicTx>> {
        match (&self.rx, &self.tx) {
            (Channel::NicTx(t), _) | (_, Channel::NicTx(t)) => Some(t),
            _ => None,
        }
    }

    /// Whether the other end reset this one (or closed with unread data,
    /// or with SO_LINGER 0): the NIC's end then resets the connection.
    pub fn is_reset(&self) -> bool {
        self.was_reset()
    }

    /// The NIC socket set that pumps this end's connection, if one does.
    pub fn nic_shard(&self) -> Option<usize> {
        self.nic_shard
    }

    fn was_reset(&self) -> bool {
        self.link.reset[self.side].load(Ordering::Acquire)
    }

    /// Reads what has arrived (0: the peer shut down its writing, or this
    /// end its reading), waiting no later than `deadline` (SO_RCVTIMEO:
    /// EAGAIN after). ECONNRESET once the data before a reset is read.
    pub fn read_until(&self, buf: &mut [u8], nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        if self.rd_shut.load(Ordering::Acquire) {
            return Ok(0);
        }
        if self.was_reset() {
            return match self.rx.read(buf, true, None) {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(ECONNRESET),
            };
        }
        self.rx.read(buf, nonblock, deadline)
    }

    /// read(2) straight into the program's memory, for the program's end
    /// of a connection through the NIC (None for any other: the caller
    /// reads into a kernel buffer).
    pub fn read_user(&self, user: &mut crate::mm::uaccess::UserSpace, buf: crate::mm::uaccess::UserSlice, nonblock: bool, deadline: Option<u64>) -> Option<Result<usize, Errno>> {
        let Channel::NicRx(rx) = &self.rx else { return None };
        if self.rd_shut.load(Ordering::Acquire) {
            return Some(Ok(0));
        }
        if self.was_reset() {
            return Some(match rx.read_user(user, buf, true, None) {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(ECONNRESET),
            });
        }
        Some(rx.read_user(user, buf, nonblock, deadline))
    }

    /// Copies what has arrived without taking it (MSG_PEEK; never waits).
    pub fn peek(&self, buf: &mut [u8]) -> Result<usize, Errno> {
        match self.rx.peek(buf) {
            0 if self.rx.hung_up_for_reader() || self.rd_shut.load(Ordering::Acquire) => Ok(0),
            0 if self.was_reset() => Err(ECONNRESET),
            0 => Err(EAGAIN),
            n => Ok(n),
        }
    }

    /// Writes some of `data`, waiting no later than `deadline` (SO_SNDTIMEO;
    /// EAGAIN after); EPIPE once this end shut down writing or the peer is
    /// gone (ECONNRESET first when it reset the connection).
    pub fn write_until(&self, data: &[u8], nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        if let Some(r) = self.write_gate(data.len()) {
            return r;
        }
        self.tx.write(data, nonblock, deadline)
    }

    /// write(2) straight from the program's memory, for the program's end
    /// of a connection through the NIC (None for any other: the caller
    /// copies into a kernel buffer and calls `write_until`).
    pub fn write_user(&self, user: &mut crate::mm::uaccess::UserSpace, buf: crate::mm::uaccess::UserSlice, nonblock: bool, deadline: Option<u64>) -> Option<Result<usize, Errno>> {
        let Channel::NicTx(tx) = &self.tx else { return None };
        if let Some(r) = self.write_gate(buf.len()) {
            return Some(r);
        }
        Some(tx.write_user(user, buf, nonblock, deadline))
    }

    /// What a write gets before it looks for room, if it gets no room.
    fn write_gate(&self, len: usize) -> Option<Result<usize, Errno>> {
        if self.wr_shut.load(Ordering::Acquire) {
            return Some(Err(EPIPE));
        }
        if self.link.reset[self.side].swap(false, Ordering::AcqRel) {
            self.wr_shut.store(true, Ordering::Release);
            return Some(Err(ECONNRESET));
        }
        // On Linux the first write after the peer closed still succeeds
        // (the peer's kernel answers it with a reset); the next is EPIPE.
        if self.tcp && self.tx.broken_for_writer() && !self.wrote_to_closed.swap(true, Ordering::AcqRel) {
            return Some(Ok(len));
        }
        None
    }

    /// shutdown(2): SHUT_RD makes reads return 0; SHUT_WR gives the peer
    /// end of file.
    pub fn shutdown(&self, read: bool, write: bool) {
        if read {
            self.rd_shut.store(true, Ordering::Release);
        }
        if write && !self.wr_shut.swap(true, Ordering::AcqRel) {
            self.tx.close_end(true);
        }
        if let Some(shard) = self.nic_shard {
            crate::net::nic::changed(shard); // the FIN goes out at the next poll
        }
    }

    /// Makes what arrives for this end notify `hub` (a listener's, while
    /// the connection waits in its queue) until `link` names the owning
    /// socket's own.
    pub fn watch_arrivals(&self, hub: &Arc<crate::fs::pollhub::Hub>) {
        self.rx.link(0, hub);
    }

    /// Makes changes of both directions notify the owning socket's epoll
    /// hub (once; the socket calls it whenever its readiness is looked at).
    pub fn link(&self, hub: &Arc<crate::fs::pollhub::Hub>) {
        if !self.linked.swap(true, Ordering::AcqRel) {
            self.rx.link(0, hub);
            self.tx.link(1, hub);
        }
    }

    /// The sum of both pipes' change counters.
    pub fn generation(&self) -> u64 {
        self.rx.generation().wrapping_add(self.tx.generation())
    }

    pub fn readiness(&self) -> u32 {
        let rd_shut = self.rd_shut.load(Ordering::Acquire);
        let wr_shut = self.wr_shut.load(Ordering::Acquire);
        let peer_done = self.rx.hung_up_for_reader() || rd_shut;
        let writable = self.tx.writable() || wr_shut;
        let both = peer_done && (wr_shut || self.tx.broken_for_writer());
        stream_bits(self.rx.readable() || rd_shut, writable, peer_done, both, self.was_reset())
    }

    /// Resets the connection (close with SO_LINGER on and a zero timeout:
    /// Linux sends RST instead of FIN).
    pub fn abort(&self) {
        self.link.reset[1 - self.side].store(true, Ordering::Release);
    }

    /// Bytes waiting to be read (FIONREAD/SIOCINQ).
    pub fn pending(&self) -> usize {
        self.rx.len()
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        if self.tcp && self.rx.len() > 0 {
            // Linux answers a close with unread data with a reset.
            self.link.reset[1 - self.side].store(true, Ordering::Release);
        }
        self.rx.close_end(false);
        if !self.wr_shut.load(Ordering::Acquire) {
            self.tx.close_end(true);
        }
        if let Some(shard) = self.nic_shard {
            crate::net::nic::changed(shard); // FIN or reset at the next poll
        }
    }
}

/// A listening socket's queue of connections not yet accepted: each
/// with its end (to see whether data came, for TCP_DEFER_ACCEPT) and
/// when it was queued.
/// A queued connection: its socket, its end, when it was queued (ns).
type Queued = (Arc<Socket>, Arc<Endpoint>, u64);

pub struct Listener {
    queue: Lock<VecDeque<Queued>>,
    /// The most connections queued.
    limit: usize,
    /// The program's backlog + 1 (at most `limit`): connections through the
    /// NIC wait in the kernel beyond it (nic/tcp.rs), as Linux holds back
    /// the handshakes of a full queue. Loopback TCP cannot wait (its connect
    /// has no retry), so it is offered up to `limit`.
    backlog: usize,
}

/// Whether a queued connection may be accepted under a deferral of
/// `defer` ns (0: none): it has data, or its peer is done, or the
/// deferral has passed (deferaccept.rs).
fn ready(end: &Endpoint, queued: u64, defer: u64, now: u64) -> bool {
    use crate::fs::epoll::{EPOLLHUP, EPOLLIN, EPOLLRDHUP};
    defer == 0 || now >= queued.saturating_add(defer) || end.readiness() & (EPOLLIN | EPOLLRDHUP | EPOLLHUP) != 0
}

impl Listener {
    /// Linux keeps up to backlog + 1 connections waiting; `limit` may
    /// allow more (loopback TCP, see `backlog`).
    pub fn new(limit: usize, backlog: usize) -> Self {
        let limit = limit + 1;
        Listener { queue: Lock::new(LockClass::AcceptQueue, VecDeque::new()), limit, backlog: (backlog + 1).min(limit) }
    }

    /// A connection may be accepted now (`defer`: the listener's
    /// TCP_DEFER_ACCEPT in ns).
    pub fn pending(&self, defer: u64) -> bool {
        let now = if defer == 0 { 0 } else { crate::sched::clock::monotonic_ns() };
        self.queue.lock().iter().any(|(_, e, at)| ready(e, *at, defer, now))
    }

    /// Whether a connection through the NIC should wait: the program's
    /// backlog is full.
    pub fn is_full(&self) -> bool {
        self.queue.lock().len() >= self.backlog
    }

    /// Queues connection `conn` (whose end is `end`) on `server`'s queue;
    /// false when it is full. Under TCP_DEFER_ACCEPT the end's arrivals
    /// notify the listener's hub until it is accepted, and the listener is
    /// poked when the deferral ends.
    pub fn offer(&self, server: &Arc<Socket>, conn: Arc<Socket>, end: Arc<Endpoint>) -> bool {
        let defer = super::deferaccept::deferral_ns(server);
        let now = crate::sched::clock::monotonic_ns();
        if defer != 0 {
            end.watch_arrivals(&server.hub);
        }
        {
            let mut q = self.queue.lock();
            if q.len() >= self.limit || q.try_reserve(1).is_err() {
                return false;
            }
            q.push_back((conn, end, now));
        }
        if defer != 0 {
            super::deferaccept::poke_at(server, now.saturating_add(defer));
        }
        true
    }

    fn take(&self, defer: u64) -> Option<Arc<Socket>> {
        let now = if defer == 0 { 0 } else { crate::sched::clock::monotonic_ns() };
        let mut q = self.queue.lock();
        if q.len() >= self.backlog {
            // Connections through the NIC may wait for this room (nic/tcp.rs).
            crate::net::nic::listener_room();
        }
        let at = q.iter().position(|(_, e, queued)| ready(e, *queued, defer, now))?;
        q.remove(at).map(|(conn, _, _)| conn)
    }
}

pub fn accept(listening: &Arc<Socket>, nonblock: bool) -> Result<Arc<Socket>, Errno> {
    let deadline = super::timeo::recv_deadline(listening);
    let listener = match &*listening.state.lock() {
        State::Listening(l) => l.clone(),
        _ => return Err(gometal_core::linux::errno::EINVAL),
    };
    let defer = super::deferaccept::deferral_ns(listening);
    let conn = if nonblock {
        listener.take(defer).ok_or(EAGAIN)?
    } else if defer == 0 {
        listening.waiters.wait_until(deadline, || listener.take(0)).map_err(wait_errno)?
    } else {
        // A deferred connection's data notifies the listener's poll hub,
        // not its waiters: wait as poll(2) does, for any hub's news, and
        // look again when the first deferral ends.
        loop {
            let first_end = listener.first_queued().map(|at| at.saturating_add(defer));
            let until = match (deadline, first_end) {
                (Some(d), Some(e)) => Some(d.min(e)),
                (d, e) => d.or(e),
            };
            match crate::fs::epoll::POLL_WAITERS.wait_until(until, || listener.take(defer)) {
                Ok(c) => break c,
                Err(crate::sched::wait::WaitError::TimedOut) if deadline.is_none_or(|d| crate::sched::clock::monotonic_ns() < d) => continue,
                Err(e) => return Err(wait_errno(e)),
            }
        }
    };
    listening.changed();
    Ok(conn)
}

impl Listener {
    /// When the oldest queued connection was queued.
    fn first_queued(&self) -> Option<u64> {
        self.queue.lock().iter().map(|(_, _, at)| *at).min()
    }
}

/// Connects `client` to the listening socket `server`: makes the accepted
/// socket, queues it and marks the client connected. ECONNREFUSED when
/// `server` is not listening, EAGAIN when its queue is full.
pub fn connect_to(client: &Arc<Socket>, server: &Arc<Socket>, client_addr: gometal_core::linux::sockaddr::SockAddr, server_addr: gometal_core::linux::sockaddr::SockAddr) -> Result<(), Errno> {
    let listener = match &*server.state.lock() {
        State::Listening(l) => l.clone(),
        _ => return Err(gometal_core::linux::errno::ECONNREFUSED),
    };
    let (client_end, server_end) = Endpoint::pair(client.is_tcp(), client.ty == super::SockType::SeqPacket)?;
    let accepted = Socket::new(server.family, server.ty);
    *accepted.local.lock() = Some(server_addr);
    *accepted.peer.lock() = Some(client_addr);
    server.opts.lock().inherit_into(&mut accepted.opts.lock_nested(crate::sync::LockClass::AcceptedOptions));
    let server_end = Arc::new(server_end);
    *accepted.state.lock() = State::Connected(server_end.clone());
    // The client is connected before the server can see it, so a server
    // that accepts and writes at once finds a reader.
    *client.state.lock() = State::Connected(Arc::new(client_end));
    if !listener.offer(server, accepted, server_end) {
        *client.state.lock() = State::Idle;
        return Err(EAGAIN);
    }
    server.changed();
    client.changed();
    Ok(())
}
