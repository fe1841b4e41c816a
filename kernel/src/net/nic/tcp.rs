//! Inbound TCP through the NIC. A port some program listens on gets a pool
//! of smoltcp listening sockets; a connection smoltcp establishes is handed
//! to the program's listener as an ordinary connected stream (the pipe
//! pair loopback uses, stream.rs), and from then on `pump` moves bytes
//! between the smoltcp socket and the far end of those pipes. So accept,
//! read, write, epoll and close behave exactly as on loopback.
//!
//! smoltcp defaults changed, and why: Nagle is off and delayed ACK is off
//! (the pipes already batch what the program writes, and a request/reply
//! exchange over slirp should not wait 10 ms for an ACK); buffer sizes and
//! the cap on connections are buffers.rs's.

use crate::net::socket::{Family, SockType, Socket, State};
use crate::net::stream::Endpoint;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use gometal_core::errno::EAGAIN;
use gometal_core::sockaddr::SockAddr;
use smoltcp::iface::{SocketHandle, SocketSet};
use smoltcp::socket::tcp::{self, State as TcpState};

/// Listening smoltcp sockets kept per port: each takes one SYN, and the
/// pool is refilled after every frame that changed a socket (mod.rs), so
/// a few cover a burst; a SYN finding none is answered with a reset.
const POOL: usize = 4;

/// A connection handed to a program: its smoltcp socket and the far end
/// of its pipes.
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
    /// (port, its listening smoltcp sockets).
    listening: Vec<(u16, Vec<SocketHandle>)>,
    /// Connections smoltcp is still establishing: (port, socket).
    embryos: Vec<(u16, SocketHandle)>,
    conns: Vec<Conn>,
    /// Connections programs are opening (outbound.rs).
    pub outbound: Vec<super::outbound::Pending>,
    /// Every NIC socket's buffers (buffers.rs): the cap on connections.
    pub buffers: super::buffers::Buffers,
}

impl Tcp {
    /// Accepts connections to `port` from now on (a program listens on it).
    pub fn listen(&mut self, sockets: &mut SocketSet<'static>, port: u16) {
        if port == 0 || self.listening.iter().any(|(p, _)| *p == port) {
            return;
        }
        self.listening.push((port, Vec::new()));
        self.refill(sockets);
    }

    /// Moves sockets that took a SYN out of the pools and tops them up.
    pub fn refill(&mut self, sockets: &mut SocketSet<'static>) {
        for (port, pool) in &mut self.listening {
            let embryos = &mut self.embryos;
            pool.retain(|&h| {
                let listening = sockets.get::<tcp::Socket>(h).state() == TcpState::Listen;
                if !listening {
                    embryos.push((*port, h));
                }
                listening
            });
            while pool.len() < POOL {
                let Some(h) = self.buffers.add(sockets, |s| s.listen(*port).is_ok()) else { break };
                pool.push(h);
            }
        }
    }

    /// One round of work after smoltcp polled: new connections handed
    /// over, bytes moved, finished connections dropped. True if anything
    /// moved (smoltcp may have something to send).
    pub fn step(&mut self, sockets: &mut SocketSet<'static>) -> bool {
        self.refill(sockets);
        let mut moved = self.hand_over(sockets);
        for (handle, end, sock) in super::outbound::settle(sockets, &mut self.buffers, &mut self.outbound) {
            self.conns.push(Conn { handle, end, fin_given: false, fin_sent: false, sock });
            moved = true;
        }
        let (noted, next) = super::keepalive::take_settled();
        if next != u64::MAX {
            super::poll::poll_by(next); // the rest once they have settled
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
            match s.state() {
                TcpState::SynReceived | TcpState::Listen => {
                    i += 1;
                    continue;
                }
                TcpState::Closed | TcpState::TimeWait => self.buffers.remove(sockets, h),
                _ => match accept(s, port) {
                    Some((end, sock)) => {
                        if let Some(program) = sock.upgrade() {
                            super::keepalive::apply(s, &program); // inherited from the listener
                        }
                        self.conns.push(Conn { handle: h, end, fin_given: false, fin_sent: false, sock });
                        moved = true;
                    }
                    None => {
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
            self.embryos.swap_remove(i);
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

/// Queues an established connection on the listener for its port; the far
/// end of its pipes and the program's socket, or None when nobody listens
/// (or the queue is full).
fn accept(s: &tcp::Socket, port: u16) -> Option<(Endpoint, Weak<Socket>)> {
    let remote = super::addr::inet_of(s.remote_endpoint()?);
    let local = super::addr::own_for(&remote, port);
    let listening = crate::net::inet::find_listener(&local)?;
    let v6 = listening.family == Family::Inet6;
    let (program_end, far_end) = Endpoint::pair(true, false).ok()?;
    let accepted = Socket::new(listening.family, SockType::Stream);
    *accepted.local.lock() = Some(SockAddr::Inet(local.as_family(v6)));
    *accepted.peer.lock() = Some(SockAddr::Inet(remote.as_family(v6)));
    listening.opts.lock().inherit_into(&mut accepted.opts.lock());
    *accepted.state.lock() = State::Connected(Arc::new(program_end));
    let listener = match &*listening.state.lock() {
        State::Listening(l) => l.clone(),
        _ => return None,
    };
    let weak = Arc::downgrade(&accepted);
    if !listener.offer(accepted) {
        return None;
    }
    listening.changed();
    Some((far_end, weak))
}

/// Moves what it can both ways; (anything moved, the connection is over).
fn pump(c: &mut Conn, s: &mut tcp::Socket) -> (bool, bool) {
    let mut moved = false;
    // Remote to program, as far as the pipe has room.
    while s.can_recv() && !c.fin_given {
        let r = s.recv(|buf| match c.end.write(buf, true) {
            Ok(n) => (n, Ok(n)),
            Err(e) => (0, Err(e)),
        });
        match r {
            Ok(Err(EAGAIN)) => {
                // Full: the program's next read kicks the NIC. Noted
                // before one more try, so a read in between is not missed.
                super::stats::PIPE_FULL.add(1);
                c.end.want_room();
                if s.recv(|buf| match c.end.write(buf, true) {
                    Ok(n) => (n, n),
                    Err(_) => (0, 0),
                }) != Ok(0)
                {
                    moved = true;
                    continue;
                }
                break;
            }
            Ok(Ok(0)) | Err(_) => break,
            Ok(Ok(_)) => moved = true,
            Ok(Err(_)) => {
                // The program closed its socket: Linux resets.
                s.abort();
                c.fin_given = true;
                c.fin_sent = true;
                return (true, false);
            }
        }
    }
    // Program to remote, as far as smoltcp's buffer has room.
    while !c.fin_sent && s.can_send() {
        let r = s.send(|buf| match c.end.read(buf, true) {
            Ok(n) => (n, Ok(n)),
            Err(e) => (0, Err(e)),
        });
        match r {
            Ok(Ok(0)) => {
                s.close(); // the program closed or shut down writing: FIN
                c.fin_sent = true;
                moved = true;
            }
            Ok(Ok(_)) => moved = true,
            Ok(Err(EAGAIN)) | Err(_) => break,
            Ok(Err(_)) => {
                s.abort();
                c.fin_sent = true;
                moved = true;
            }
        }
    }
    let state = s.state();
    if !c.fin_given && !s.may_recv() && s.recv_queue() == 0 {
        if state == TcpState::Closed && !c.fin_sent {
            c.end.abort(); // the remote reset the connection
        } else {
            c.end.shutdown(false, true); // the remote's FIN: end of file
        }
        c.fin_given = true;
        moved = true;
    }
    let done = matches!(state, TcpState::Closed | TcpState::TimeWait) && c.fin_given;
    (moved, done)
}
