//! The socket object behind a socket descriptor: its family and type, its
//! state (idle, listening, connected), its addresses, options and pending
//! error, and its readiness for epoll.

use super::dgram::DgramQueue;
use super::options::Options;
use super::stream::{Endpoint, Listener};
use crate::fs::epoll::{EPOLLERR, EPOLLHUP, EPOLLIN, EPOLLOUT, EPOLLRDHUP};
use crate::sched::wait::WaitQueue;
use alloc::sync::{Arc, Weak};
use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::linux::errno::Errno;
use gometal_core::linux::sockaddr::{SockAddr, UnixAddr};
use crate::sync::{Lock, LockClass};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Unix,
    Inet4,
    Inet6,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SockType {
    Stream,
    Dgram,
    /// AF_UNIX only: connected, reliable, with message boundaries.
    SeqPacket,
}

impl SockType {
    /// Connected through listen/accept/connect (stream, seqpacket).
    pub fn connected(self) -> bool {
        self != SockType::Dgram
    }
}

/// An ICMP datagram socket (net/ping.rs): which kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Icmp {
    /// SOCK_DGRAM, IPPROTO_ICMP: Linux's unprivileged ping socket.
    Ping,
    /// SOCK_RAW, IPPROTO_ICMP: every ICMP packet, IPv4 header included.
    Raw,
}

pub enum State {
    /// A stream socket neither listening nor connected (or a datagram socket).
    Idle,
    Listening(Arc<Listener>),
    Connected(Arc<Endpoint>),
}

/// What keeps a bound name reserved; dropping it frees the name (the
/// value is held only for its Drop).
#[allow(dead_code)]
pub enum Bound {
    Inet(super::inet::Binding),
    Unix(super::unixns::Name),
    /// A path in the file system (the node outlives the socket).
    Path,
}

pub struct Socket {
    pub family: Family,
    pub ty: SockType,
    /// Set for ICMP sockets (their type is Dgram).
    pub icmp: Option<Icmp>,
    pub state: Lock<State>,
    pub local: Lock<Option<SockAddr>>,
    pub peer: Lock<Option<SockAddr>>,
    /// A connected AF_UNIX datagram socket's peer (socketpair, connect).
    pub dgram_peer: Lock<Option<Weak<Socket>>>,
    pub bound: Lock<Option<Bound>>,
    pub opts: Lock<Options>,
    /// SO_ERROR: set by a failed non-blocking connect or an ICMP-like
    /// refusal; taken by getsockopt or the next send/receive.
    pending_error: Lock<Option<Errno>>,
    /// A non-blocking connect answered EINPROGRESS and no connect call has
    /// seen its outcome yet (the next one reports it, as on Linux).
    pub connecting: core::sync::atomic::AtomicBool,
    /// Set once listen(2) made it a listener (states never go back): read
    /// by bind's SO_REUSEADDR check under the port table's lock, which
    /// comes after the state's in the lock order.
    pub listening: core::sync::atomic::AtomicBool,
    /// Datagrams waiting to be received (datagram sockets only).
    pub queue: Option<DgramQueue>,
    /// Threads in accept, and datagram senders and receivers.
    pub waiters: WaitQueue,
    /// Bumped at every readiness change not counted by a pipe.
    generation: AtomicU64,
    /// The epoll watches on it (its connection's pipes notify it too).
    pub hub: Arc<crate::fs::pollhub::Hub>,
}

impl Socket {
    pub fn new(family: Family, ty: SockType) -> Arc<Socket> {
        Self::with_icmp(family, ty, None)
    }

    /// A socket that is an ICMP socket of kind `icmp` when it is Some.
    pub fn with_icmp(family: Family, ty: SockType, icmp: Option<Icmp>) -> Arc<Socket> {
        super::count_open();
        Arc::new(Socket {
            family,
            ty,
            icmp,
            state: Lock::new(LockClass::SocketState, State::Idle),
            local: Lock::new(LockClass::SocketLocal, None),
            peer: Lock::new(LockClass::SocketPeer, None),
            dgram_peer: Lock::new(LockClass::SocketDgramPeer, None),
            bound: Lock::new(LockClass::SocketBinding, None),
            opts: Lock::new(LockClass::SocketOptions, Options::new(family, ty)),
            pending_error: Lock::new(LockClass::SocketError, None),
            connecting: core::sync::atomic::AtomicBool::new(false),
            listening: core::sync::atomic::AtomicBool::new(false),
            queue: (ty == SockType::Dgram).then(DgramQueue::new),
            waiters: WaitQueue::new(),
            generation: AtomicU64::new(0),
            hub: Arc::new(crate::fs::pollhub::Hub::new()),
        })
    }

    pub fn is_inet(&self) -> bool {
        self.family != Family::Unix
    }

    pub fn is_tcp(&self) -> bool {
        self.is_inet() && self.ty == SockType::Stream
    }

    /// Something about the socket changed: wake its waiters and epoll.
    pub fn changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.waiters.wake_all();
        self.hub.notify();
    }

    pub fn set_error(&self, e: Errno) {
        *self.pending_error.lock() = Some(e);
        self.changed();
    }

    /// Takes the pending error (SO_ERROR, or the next call that reports it).
    pub fn take_error(&self) -> Option<Errno> {
        self.pending_error.lock().take()
    }

    fn has_error(&self) -> bool {
        self.pending_error.lock().is_some()
    }

    /// The name getsockname reports: the bound one, or the family's
    /// "nothing" (0.0.0.0:0, [::]:0, an unnamed AF_UNIX address).
    pub fn local_addr(&self) -> SockAddr {
        if let Some(a) = self.local.lock().clone() {
            return a;
        }
        match self.family {
            Family::Unix => SockAddr::Unix(UnixAddr::Unnamed),
            Family::Inet4 => SockAddr::Inet(gometal_core::linux::sockaddr::InetAddr::v4([0; 4], 0)),
            Family::Inet6 => SockAddr::Inet(gometal_core::linux::sockaddr::InetAddr::v6([0; 16], 0)),
        }
    }

    /// epoll event bits and the counter that moves when they may change.
    pub fn readiness(&self) -> (u32, u64) {
        let mut generation = self.generation.load(Ordering::Acquire);
        let err = if self.has_error() { EPOLLERR } else { 0 };
        // Read before the state lock: the options' lock comes after it.
        let defer = if self.listening.load(Ordering::Acquire) { super::deferaccept::deferral_ns(self) } else { 0 };
        let bits = match &*self.state.lock() {
            State::Listening(l) => {
                if l.pending(defer) {
                    EPOLLIN
                } else {
                    0
                }
            }
            State::Connected(e) => {
                // Before the look: a change after it reaches the hub.
                e.link(&self.hub);
                generation = generation.wrapping_add(e.generation());
                e.readiness()
            }
            State::Idle if self.ty == SockType::Dgram => {
                let readable = self.queue.as_ref().is_some_and(|q| !q.is_empty());
                (if readable { EPOLLIN } else { 0 }) | EPOLLOUT
            }
            // A stream socket that never connected (or whose connect failed)
            // is writable and hung up, as Linux's tcp_poll reports it.
            State::Idle => EPOLLOUT | EPOLLHUP,
        };
        (bits | err, generation)
    }
}

/// The bits a connected stream endpoint reports.
pub fn stream_bits(readable: bool, writable: bool, peer_done: bool, both_done: bool, reset: bool) -> u32 {
    let mut bits = 0;
    if readable || reset {
        bits |= EPOLLIN;
    }
    if writable {
        bits |= EPOLLOUT;
    }
    if peer_done {
        bits |= EPOLLRDHUP;
    }
    if both_done || reset {
        bits |= EPOLLHUP;
    }
    if reset {
        bits |= EPOLLERR;
    }
    bits
}

impl Drop for Socket {
    fn drop(&mut self) {
        let linger = self.opts.lock().linger;
        if self.is_tcp() && linger.0 != 0 && linger.1 == 0 {
            if let State::Connected(e) = &*self.state.lock() {
                e.abort();
            }
        }
        super::count_closed();
    }
}
