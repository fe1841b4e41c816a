//! Buffers the console device fills (receive queues): each posted buffer
//! is kept by its token until the device hands it back, and buffers are
//! parked instead of reposted while a reader is behind (flow control).

use super::{Queue, QUEUE_SIZE, RX_BUF};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// Receive buffers the device holds, by token, so they stay alive.
pub(super) struct RxBuffers {
    pub(super) queue: Queue,
    posted: Vec<Option<Box<[u8]>>>,
    /// Buffers held back while the reader is behind (flow control).
    pub(super) parked: Vec<Box<[u8]>>,
}

impl RxBuffers {
    pub(super) fn new(queue: Queue) -> Self {
        RxBuffers { queue, posted: (0..QUEUE_SIZE).map(|_| None).collect(), parked: Vec::new() }
    }

    pub(super) fn post(&mut self, mut buf: Box<[u8]>) -> bool {
        // SAFETY: the buffer is kept in `posted` under its token until
        // pop_used hands it back, so it outlives the device's use.
        match unsafe { self.queue.add(&[], &mut [&mut buf]) } {
            Ok(token) => {
                self.posted[token as usize] = Some(buf);
                true
            }
            Err(_) => {
                self.parked.push(buf);
                false
            }
        }
    }

    /// The next filled buffer and its length.
    pub(super) fn pop(&mut self) -> Option<(Box<[u8]>, usize)> {
        let token = self.queue.peek_used()?;
        let mut buf = self.posted[token as usize].take()?;
        // SAFETY: the same buffer that was added under `token`.
        let len = unsafe { self.queue.pop_used(token, &[], &mut [&mut buf]) }.ok()? as usize;
        Some((buf, len.min(RX_BUF)))
    }
}
