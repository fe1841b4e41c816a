//! Outbound TCP through the NIC: connect(2) to an address that is not
//! loopback. The socket stays unconnected (getpeername ENOTCONN, as Go's
//! dialer expects while it waits) until smoltcp has the connection; then
//! it becomes an ordinary connected stream, the same pipe pair as loopback,
//! and tcp.rs pumps it like an accepted one. A refusal (the remote's reset)
//! is ECONNREFUSED: from connect itself when it blocks, else as SO_ERROR.

use super::buffers::Buffers;
use crate::net::socket::{Family, Socket, State};
use crate::net::stream::Endpoint;
use alloc::sync::{Arc, Weak};
use gometal_core::linux::errno::*;
use gometal_core::linux::sockaddr::{InetAddr, SockAddr};
use smoltcp::iface::{Interface, SocketHandle, SocketSet};
use smoltcp::socket::tcp::{self, State as TcpState};

/// A connection smoltcp is still opening for a program's socket.
pub struct Pending {
    pub handle: SocketHandle,
    owner: Weak<Socket>,
    program: Endpoint,
    far: Endpoint,
    peer: SockAddr,
}

/// Whether the NIC carries connections to `to` (addr.rs: neither loopback,
/// unspecified, link-local nor our own, with a NIC present).
pub fn routes(to: &InetAddr) -> bool {
    super::addr::routes(to)
}

/// Starts the connection in smoltcp, in the socket set its addresses hash
/// to (returned); the caller waits for the outcome.
pub fn start(iface: &mut Interface, sock: &Arc<Socket>, to: InetAddr) -> Result<usize, Errno> {
    let port = match sock.local.lock().clone() {
        Some(SockAddr::Inet(a)) => a.port,
        _ => 0,
    };
    let port = if port != 0 {
        port
    } else {
        let any = if sock.family == Family::Inet6 { InetAddr::v6([0; 16], 0) } else { InetAddr::v4([0; 4], 0) };
        crate::net::inet::bind(sock, any).map_err(|_| EADDRNOTAVAIL)?.port
    };
    let v6 = sock.family == Family::Inet6;
    *sock.local.lock() = Some(SockAddr::Inet(super::addr::own_for(&to, port).as_family(v6)));
    let remote = super::addr::endpoint_of(&to);
    let set = super::shard::of(&to, port);
    let mut guard = super::shard::set(set).lock();
    let sh = &mut *guard;
    let mut refused = false;
    let cx = iface.context();
    let handle = sh.tcp.buffers.add(&mut sh.sockets, |s| {
        refused = s.connect(cx, remote, port).is_err();
        !refused
    });
    let handle = handle.ok_or(if refused { EADDRNOTAVAIL } else { ENOBUFS })?;
    let capacity = sh.sockets.get::<tcp::Socket>(handle).send_capacity();
    let (program, far) = match Endpoint::nic_pair(set, handle, capacity) {
        Ok(ends) => ends,
        Err(e) => {
            sh.tcp.buffers.remove(&mut sh.sockets, handle);
            return Err(e);
        }
    };
    let tcp = &mut sh.tcp;
    tcp.outbound.push(Pending { handle, owner: Arc::downgrade(sock), program, far, peer: SockAddr::Inet(to) });
    Ok(set)
}

/// Settles the connections smoltcp opened or that failed; returns the
/// ones now open as (smoltcp socket, far end of their pipes, program's socket).
pub fn settle(sockets: &mut SocketSet<'static>, buffers: &mut Buffers, pending: &mut alloc::vec::Vec<Pending>) -> alloc::vec::Vec<(SocketHandle, Endpoint, Weak<Socket>)> {
    let mut open = alloc::vec::Vec::new();
    let mut i = 0;
    while i < pending.len() {
        let state = sockets.get::<tcp::Socket>(pending[i].handle).state();
        if matches!(state, TcpState::SynSent | TcpState::SynReceived) {
            i += 1;
            continue;
        }
        let p = pending.swap_remove(i);
        let Some(owner) = p.owner.upgrade() else {
            sockets.get_mut::<tcp::Socket>(p.handle).abort();
            open.push((p.handle, p.far, Weak::new())); // closed by the pump: nobody reads
            continue;
        };
        if state == TcpState::Closed {
            buffers.remove(sockets, p.handle);
            owner.set_error(ECONNREFUSED);
            continue;
        }
        *owner.peer.lock() = Some(p.peer);
        *owner.state.lock() = State::Connected(Arc::new(p.program));
        owner.changed();
        super::keepalive::apply(sockets.get_mut::<tcp::Socket>(p.handle), &owner);
        open.push((p.handle, p.far, p.owner));
    }
    open
}
