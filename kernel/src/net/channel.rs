//! One direction of a connection: a byte pipe (TCP, AF_UNIX stream), a
//! message pipe (AF_UNIX seqpacket), or, for a TCP connection through the
//! NIC, that connection's smoltcp receive or send buffer itself (nic/rx.rs,
//! nic/tx.rs), behind one interface for stream.rs.

use super::msgpipe::MsgPipe;
use super::nic::rx::NicRx;
use super::nic::tx::NicTx;
use crate::fs::pipe::Pipe;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use gometal_core::linux::errno::{Errno, ENOBUFS};

pub enum Channel {
    Bytes(Arc<Pipe>),
    Messages(Arc<MsgPipe>),
    /// What the NIC receives, read straight from smoltcp (the NIC's side
    /// only closes it).
    NicRx(Arc<NicRx>),
    /// What the program sends, written straight into smoltcp (the NIC's
    /// side only closes it).
    NicTx(Arc<NicTx>),
}

impl Clone for Channel {
    fn clone(&self) -> Self {
        match self {
            Channel::Bytes(p) => Channel::Bytes(p.clone()),
            Channel::Messages(m) => Channel::Messages(m.clone()),
            Channel::NicRx(r) => Channel::NicRx(r.clone()),
            Channel::NicTx(t) => Channel::NicTx(t.clone()),
        }
    }
}

macro_rules! both {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Channel::Bytes($c) => $e,
            Channel::Messages($c) => $e,
            Channel::NicRx($c) => $e,
            Channel::NicTx($c) => $e,
        }
    };
}

impl Channel {
    /// A new direction; ENOBUFS when the heap is out.
    pub fn new(messages: bool) -> Result<Channel, Errno> {
        Ok(if messages { Channel::Messages(Arc::new(MsgPipe::new())) } else { Channel::Bytes(Arc::new(Pipe::new().ok_or(ENOBUFS)?)) })
    }

    /// Reads, waiting (unless `nonblock`) no later than `deadline`.
    pub fn read(&self, buf: &mut [u8], nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        match self {
            Channel::Bytes(p) => p.read_until(buf, nonblock, deadline),
            Channel::Messages(m) => m.read(buf, nonblock, deadline),
            Channel::NicRx(r) => r.read(buf, nonblock, deadline),
            Channel::NicTx(_) => Err(gometal_core::linux::errno::EBADF),
        }
    }

    /// Writes, waiting (unless `nonblock`) no later than `deadline`.
    pub fn write(&self, data: &[u8], nonblock: bool, deadline: Option<u64>) -> Result<usize, Errno> {
        match self {
            Channel::Bytes(p) => p.write_until(data, nonblock, deadline),
            Channel::Messages(m) => m.write(data, nonblock, deadline),
            Channel::NicTx(t) => t.write(data, nonblock, deadline),
            Channel::NicRx(_) => Err(gometal_core::linux::errno::EPIPE),
        }
    }

    pub fn peek(&self, buf: &mut [u8]) -> usize {
        both!(self, c => c.peek(buf))
    }

    pub fn readable(&self) -> bool {
        both!(self, c => c.readable())
    }

    pub fn writable(&self) -> bool {
        both!(self, c => c.writable())
    }

    pub fn hung_up_for_reader(&self) -> bool {
        both!(self, c => c.hung_up_for_reader())
    }

    pub fn broken_for_writer(&self) -> bool {
        both!(self, c => c.broken_for_writer())
    }

    pub fn len(&self) -> usize {
        both!(self, c => c.len())
    }

    pub fn close_end(&self, write_end: bool) {
        both!(self, c => c.close_end(write_end))
    }

    /// Makes changes of this direction notify `hub` too: the hub of the
    /// socket at its reading end (`side` 0) or writing end (1).
    pub fn link(&self, side: usize, hub: &Arc<crate::fs::pollhub::Hub>) {
        match self {
            Channel::Bytes(p) => {
                crate::fs::pollhub::link(&p.linked, side, hub);
            }
            Channel::Messages(m) => m.watchers.link(side, hub),
            Channel::NicRx(r) => r.watchers.link(side, hub),
            Channel::NicTx(t) => t.watchers.link(side, hub),
        }
    }

    pub fn generation(&self) -> u64 {
        match self {
            Channel::Bytes(p) => p.generation.load(Ordering::Acquire),
            Channel::Messages(m) => m.watchers.generation(),
            Channel::NicRx(r) => r.watchers.generation(),
            Channel::NicTx(t) => t.watchers.generation(),
        }
    }
}
