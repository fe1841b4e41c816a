//! TCP connections through the NIC, one socket set's worth (shard.rs). A
//! SYN to a port some program listens on finds a smoltcp listening socket
//! for that port in its set, made just before smoltcp sees the SYN (poll.rs),
//! so every set need not keep one per port; a connection smoltcp establishes is handed
//! to the program's listener as an ordinary connected stream (stream.rs's
//! Endpoint, as loopback's), whose receive direction is smoltcp's receive
//! buffer itself (rx.rs: the program reads it under this set's lock) and
//! whose send direction is a pipe. From then on `pump` empties that pipe
//! into smoltcp, tells the receive side what arrived (`NicRx::note`), and
//! passes FINs and resets on. So accept, read, write, epoll and close
//! behave as on loopback.
//!
//! smoltcp defaults changed, and why: Nagle is off and delayed ACK is off
//! (what writes put in smoltcp's buffer between two polls leaves together
//! anyway, and a request/reply
//! exchange over slirp should not wait 10 ms for an ACK); buffer sizes and
//! the cap on connections are buffers.rs's.

use crate::net::socket::{Family, SockType, Socket, State};
use crate::net::stream::Endpoint;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use gometal_core::net::netshard::Syn;
use gometal_core::linux::sockaddr::SockAddr;
use smoltcp::iface::{SocketHandle, SocketSet};
use smoltcp::socket::tcp::{self, State as TcpState};

/// How long a connection may stay half-open (our SYN-ACK sent, no ACK):
/// Linux gives up after 5 SYN-ACK retransmissions, about a minute.
const SYN_RECEIVED_TIMEOUT: smoltcp::time::Duration = smoltcp::time::Duration::from_secs(63);

/// Half-open connections one socket set may hold: its share of
/// buffers.rs's budget (6 a set at -mem 256M, 29 at 1G), at least 4. (Half
/// as many reset a real client at 1 CPU under a flood of 10,000 SYNs/s:
/// its entry was pushed out before its ACK was read.)
fn half_open_cap() -> usize {
    (super::buffers::half_open_budget() / gometal_core::net::netshard::SHARDS).max(4)
}

/// A connection handed to a program: its smoltcp socket and the NIC's end
/// of its connection (the send pipe's reader, the receive side's closer).
struct Conn {
    handle: SocketHandle,
    end: Endpoint,
    /// The program's side has seen the remote's FIN (or reset).
    fin_given: bool,
    /// Our FIN went to the remote (the program closed or shut down writing).
    fin_sent: bool,
    /// The program's socket, for its options (keepalive.rs).
    sock: Weak<Socket>,
}

#[derive(Default)]
pub struct Tcp {
    /// (port, its listening smoltcp socket in this set, if one is ready).
    listening: Vec<(u16, Option<SocketHandle>)>,
    /// Connections smoltcp is still establishing: (port, socket).
    embryos: Vec<(u16, SocketHandle)>,
    conns: Vec<Conn>,
    /// Connections programs are opening (outbound.rs).
    pub outbound: Vec<super::outbound::Pending>,
    /// This set's sockets' buffers (buffers.rs).
    pub buffers: super::buffers::Buffers,
    /// Which set this is (shard.rs), for the endpoints of its connections.
    pub shard: usize,
}

impl Tcp {
    /// Makes sure `syn`, to a port a program listens on, finds a listening
    /// socket in this set; when the cap or memory says no, it is answered
    /// with a reset. A SYN sent again (our SYN-ACK was slow) is left to the
    /// socket that took the first: a listening socket would take it too, and
    /// the two would answer for one connection, the loser with a reset.
    pub fn ensure_listener(&mut self, sockets: &mut SocketSet<'static>, syn: &Syn) {
        self.refill(sockets);
        let again = self.embryos.iter().any(|&(port, h)| {
            let from = sockets.get::<tcp::Socket>(h).remote_endpoint().map(super::addr::inet_of);
            port == syn.to_port && from.is_some_and(|a| a.ip == syn.from && a.port == syn.from_port)
        });
        if again {
            return;
        }
        let at = match self.listening.iter().position(|(p, _)| *p == syn.to_port) {
            Some(i) => i,
            None => {
                self.listening.push((syn.to_port, None));
                self.listening.len() - 1
            }
        };
        if self.listening[at].1.is_none() {
            self.make_room(sockets);
            let port = syn.to_port;
            self.listening[at].1 = self.buffers.add(sockets, |s| {
                s.set_timeout(Some(SYN_RECEIVED_TIMEOUT)); // cleared once established (hand_over)
                s.listen(port).is_ok()
            });
        }
    }

    /// A flood of SYNs nobody completes (spoofed sources) must not take
    /// every socket the cap allows, or real connections would be reset:
    /// when this set holds its share of half-open connections, the one
    /// that has waited longest (`embryos` is in arrival order) is dropped,
    /// silently, as Linux drops a SYN-queue entry. Linux answers a full
    /// queue with SYN cookies, which smoltcp has not; a real client
    /// completes its handshake in a round trip, long before SYNs for this
    /// set have pushed its entry out.
    fn make_room(&mut self, sockets: &mut SocketSet<'static>) {
        let half_open = |h: SocketHandle| sockets.get::<tcp::Socket>(h).state() == TcpState::SynReceived;
        if self.embryos.iter().filter(|e| half_open(e.1)).count() < half_open_cap() {
            return;
        }
        if let Some(i) = self.embryos.iter().position(|e| half_open(e.1)) {
            let (_, h) = self.embryos.remove(i);
            self.buffers.remove(sockets, h);
            super::stats::SYN_DROPPED.add(1);
        }
    }

    /// Moves listening sockets that took a SYN to the connections being
    /// established (after a frame changed a socket of this set).
    pub fn refill(&mut self, sockets: &mut SocketSet<'static>) {
        for (port, slot) in &mut self.listening {
            if let Some(h) = *slot {
                if sockets.get::<tcp::Socket>(h).state() != TcpState::Listen {
                    self.embryos.push((*port, h));
                    *slot = None;
                }
            }
        }
    }

    /// One round of work after smoltcp polled: new connections handed
    /// over, bytes moved, finished connections dropped; `noted` are the
    /// program sockets whose keep-alive options settled (sorted). True if
    /// anything moved (smoltcp may have something to send).
    pub fn step(&mut self, sockets: &mut SocketSet<'static>, noted: &[usize]) -> bool {
        self.refill(sockets);
        let mut moved = self.hand_over(sockets);
        for (handle, end, sock) in super::outbound::settle(sockets, &mut self.buffers, &mut self.outbound) {
            self.conns.push(Conn { handle, end, fin_given: false, fin_sent: false, sock });
            moved = true;
        }
        if !noted.is_empty() {
            for c in &self.conns {
                if noted.binary_search(&(c.sock.as_ptr() as usize)).is_ok() {
                    if let Some(sock) = c.sock.upgrade() {
                        super::keepalive::apply(sockets.get_mut::<tcp::Socket>(c.handle), &sock);
                    }
                }
            }
        }
        let mut i = 0;
        while i < self.conns.len() {
            let c = &mut self.conns[i];
            let (m, done) = pump(c, sockets.get_mut::<tcp::Socket>(c.handle));
            moved |= m;
            if done {
                let c = self.conns.swap_remove(i);
                if let Some(rx) = c.end.nic_rx() {
                    rx.remove();
                }
                if let Some(tx) = c.end.nic_tx() {
                    tx.remove();
                }
                self.buffers.remove(sockets, c.handle);
            } else {
                i += 1;
            }
        }
        moved
    }

    /// Whether every connection has sent what its program wrote: its pipe
    /// is empty and smoltcp has had all of it (and a FIN) acknowledged, or
    /// it is closed (reset).
    pub fn all_sent(&self, sockets: &SocketSet<'static>) -> bool {
        self.conns.iter().all(|c| {
            let s = sockets.get::<tcp::Socket>(c.handle);
            s.state() == TcpState::Closed || (c.end.pending() == 0 && s.send_queue() == 0 && !matches!(s.state(), TcpState::FinWait1 | TcpState::Closing | TcpState::LastAck))
        })
    }

    fn hand_over(&mut self, sockets: &mut SocketSet<'static>) -> bool {
        let mut moved = false;
        let mut i = 0;
        while i < self.embryos.len() {
            let (port, h) = self.embryos[i];
            let s = sockets.get_mut::<tcp::Socket>(h);
            if !matches!(s.state(), TcpState::SynReceived | TcpState::Listen) {
                s.set_timeout(None); // the SYN-RECEIVED one; keepalive.rs sets its own
            }
            match s.state() {
                TcpState::SynReceived | TcpState::Listen => {
                    i += 1;
                    continue;
                }
                TcpState::Closed | TcpState::TimeWait => self.buffers.remove(sockets, h),
                _ => match accept(s, h, port, self.shard) {
                    Accept::QueueFull => {
                        // Kept established until the program accepts (Linux
                        // holds the handshake back instead; neither resets).
                        super::stats::QUEUE_FULL.add(1);
                        i += 1;
                        continue;
                    }
                    Accept::Queued(end, sock) => {
                        if let Some(program) = sock.upgrade() {
                            super::keepalive::apply(s, &program); // inherited from the listener
                        }
                        self.conns.push(Conn { handle: h, end, fin_given: false, fin_sent: false, sock });
                        moved = true;
                    }
                    Accept::Refused => {
                        s.abort();
                        moved = true;
                        // Left for smoltcp to send the reset; dropped later
                        // (at once if the heap has no room for that).
                        match Conn::orphan(h) {
                            Some(c) => self.conns.push(c),
                            None => self.buffers.remove(sockets, h),
                        }
                    }
                },
            }
            self.embryos.remove(i); // kept in arrival order (make_room)
        }
        moved
    }
}

impl Conn {
    /// A connection nobody took (no listener any more): its pipes have no
    /// other end, so the pump only waits for smoltcp to close it.
    fn orphan(handle: SocketHandle) -> Option<Conn> {
        let (end, _) = Endpoint::pair(true, false).ok()?;
        Some(Conn { handle, end, fin_given: true, fin_sent: true, sock: Weak::new() })
    }
}

/// What became of an established connection offered to its listener.
enum Accept {
    /// On the listener's queue: the NIC's end of it and the program's socket.
    Queued(Endpoint, Weak<Socket>),
    /// The listener's queue is full: try again later.
    QueueFull,
    /// Nobody listens any more (or the heap has no room): reset it.
    Refused,
}

/// Queues an established connection on the listener for its port.
fn accept(s: &tcp::Socket, handle: SocketHandle, port: u16, shard: usize) -> Accept {
    let Some(remote) = s.remote_endpoint().map(super::addr::inet_of) else { return Accept::Refused };
    let local = super::addr::own_for(&remote, port);
    let Some(listening) = crate::net::inet::find_listener(&local, Some(&remote)) else { return Accept::Refused };
    let listener = match &*listening.state.lock() {
        State::Listening(l) => l.clone(),
        _ => return Accept::Refused,
    };
    if listener.is_full() {
        return Accept::QueueFull;
    }
    let v6 = listening.family == Family::Inet6;
    let Ok((program_end, far_end)) = Endpoint::nic_pair(shard, handle, s.send_capacity()) else { return Accept::Refused };
    let accepted = Socket::new(listening.family, SockType::Stream);
    *accepted.local.lock() = Some(SockAddr::Inet(local.as_family(v6)));
    *accepted.peer.lock() = Some(SockAddr::Inet(remote.as_family(v6)));
    listening.opts.lock().inherit_into(&mut accepted.opts.lock_nested(crate::sync::LockClass::AcceptedOptions));
    let program_end = Arc::new(program_end);
    *accepted.state.lock() = State::Connected(program_end.clone());
    let weak = Arc::downgrade(&accepted);
    if !listener.offer(&listening, accepted, program_end) {
        return Accept::QueueFull; // filled since is_full (another set offered)
    }
    listening.changed();
    Accept::Queued(far_end, weak)
}

/// Tells the program's end what arrived and what room was freed, passes
/// FINs and resets on; (anything changed, the connection is over).
fn pump(c: &mut Conn, s: &mut tcp::Socket) -> (bool, bool) {
    let mut moved = false;
    // Remote to program: the program reads smoltcp's buffer itself; it
    // only hears that bytes came. Bytes for a program that closed its
    // socket reset the connection, as on Linux.
    if let Some(rx) = c.end.nic_rx() {
        if rx.broken_for_writer() && s.recv_queue() > 0 && !(c.fin_given && c.fin_sent) {
            s.abort();
            c.fin_given = true;
            c.fin_sent = true;
            return (true, false);
        }
        rx.note(s);
    }
    // Program to remote: the program wrote into smoltcp's buffer itself.
    // Its end reset (closed with unread bytes, or SO_LINGER 0) resets the
    // connection; its shutdown of writing (or close) is the FIN, sent
    // after what the buffer holds.
    if let Some(tx) = c.end.nic_tx() {
        if !c.fin_sent && c.end.is_reset() {
            s.abort();
            c.fin_sent = true;
            moved = true;
        } else if !c.fin_sent && tx.closing() {
            s.close();
            c.fin_sent = true;
            moved = true;
        }
        tx.note(s);
    }
    let state = s.state();
    // The remote's FIN or reset: end of file (or ECONNRESET) once the
    // program has read what smoltcp holds before it.
    let remote_done = !matches!(state, TcpState::Established | TcpState::FinWait1 | TcpState::FinWait2 | TcpState::SynSent | TcpState::SynReceived | TcpState::Listen);
    if !c.fin_given && remote_done {
        if state == TcpState::Closed && !c.fin_sent {
            c.end.abort(); // the remote reset the connection
        } else {
            c.end.shutdown(false, true); // the remote's FIN: end of file
        }
        c.fin_given = true;
        moved = true;
    }
    // Kept while the program has bytes of it to read (or has not yet seen
    // the end of file), unless nobody reads any more.
    let unread = s.recv_queue() > 0 && c.end.nic_rx().is_some_and(|rx| !rx.broken_for_writer());
    let done = matches!(state, TcpState::Closed | TcpState::TimeWait) && c.fin_given && !unread;
    (moved, done)
}
