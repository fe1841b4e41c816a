//! One virtio-net queue pair (drivers/virtio/net.rs has one per CPU where
//! the device offers multiqueue, else one): a receive queue with the
//! buffers the device holds, a transmit queue with the frames being sent,
//! and how many frames each carried (the `stats` report shows them, and
//! tests/nettap_mq_test.go checks that more than one pair was used).

use crate::drivers::virtio::hal::KernelHal;
use crate::drivers::virtio::VirtioTransport;
use alloc::boxed::Box;
use alloc::vec::Vec;
use virtio_drivers::queue::VirtQueue;
use virtio_drivers::transport::Transport;

/// Descriptors per queue (QEMU's virtio-net offers 256).
pub const QUEUE: usize = 256;

pub type Queue = VirtQueue<KernelHal, QUEUE>;

/// One queue, boxed, in a frame of its own: a `VirtQueue` of QUEUE entries
/// is 8 KiB; two of them built in one frame (with the moves into their
/// boxes) made it 41 KiB on arm64, and with `VirtQueue::new`'s own 16 KiB
/// under it the boot overflowed its 64 KiB stack. This frame is 25 KiB.
#[inline(never)]
pub fn boxed_queue(transport: &mut VirtioTransport, idx: u16) -> Result<Box<Queue>, virtio_drivers::Error> {
    Ok(Box::new(VirtQueue::new(transport, idx, false, false)?))
}

pub struct Pair {
    pub rx: Box<Queue>,
    pub tx: Box<Queue>,
    rxq: u16,
    txq: u16,
    /// Receive buffers the device holds, by token.
    rx_bufs: Vec<Option<Vec<u8>>>,
    /// Frames being sent, by token, with their length.
    tx_bufs: Vec<Option<(Vec<u8>, usize)>>,
    /// Transmits since the device was last told.
    pub unnotified: usize,
    /// Packets received and frames queued on this pair.
    pub frames_in: u64,
    pub frames_out: u64,
}

impl Pair {
    pub fn new(transport: &mut VirtioTransport, rxq: u16, txq: u16) -> Result<Pair, virtio_drivers::Error> {
        let rx = boxed_queue(transport, rxq)?;
        let tx = boxed_queue(transport, txq)?;
        Ok(Pair {
            rx,
            tx,
            rxq,
            txq,
            rx_bufs: (0..QUEUE).map(|_| None).collect(),
            tx_bufs: (0..QUEUE).map(|_| None).collect(),
            unnotified: 0,
            frames_in: 0,
            frames_out: 0,
        })
    }

    /// Hands a receive buffer to the device (dropped if the ring refuses
    /// it: that only shrinks the ring).
    pub fn post_rx(&mut self, mut buf: Vec<u8>) {
        // SAFETY: the buffer is kept in `rx_bufs` under its token and not
        // touched until the device has used it (`pop_rx` takes that token).
        let token = unsafe { self.rx.add(&[], &mut [buf.as_mut_slice()]) };
        if let Ok(t) = token {
            if let Some(slot) = self.rx_bufs.get_mut(t as usize) {
                *slot = Some(buf);
            }
        }
    }

    pub fn notify_rx(&mut self, transport: &mut VirtioTransport) {
        if self.rx.should_notify() {
            transport.notify(self.rxq);
        }
    }

    /// Pops one used receive buffer: (buffer, bytes the device wrote).
    pub fn pop_rx(&mut self) -> Option<(Vec<u8>, usize)> {
        let token = self.rx.peek_used()?;
        let mut buf = self.rx_bufs.get_mut(token as usize)?.take()?;
        // SAFETY: `buf` is the buffer `add` was given for `token`.
        let len = unsafe { self.rx.pop_used(token, &[], &mut [buf.as_mut_slice()]) }.ok()?;
        let len = (len as usize).min(buf.len());
        Some((buf, len))
    }

    /// Takes back the transmit buffers the device has finished with,
    /// handing each to `back`.
    pub fn reclaim(&mut self, mut back: impl FnMut(Vec<u8>)) {
        while let Some(token) = self.tx.peek_used() {
            let Some((buf, len)) = self.tx_bufs.get_mut(token as usize).and_then(Option::take) else { break };
            // SAFETY: the same buffer (and length) that `add` was given.
            let _ = unsafe { self.tx.pop_used(token, &[&buf[..len]], &mut []) };
            back(buf);
        }
    }

    /// Queues the first `end` bytes of `buf`; gives the buffer back when
    /// the ring refuses it.
    pub fn send(&mut self, buf: Vec<u8>, end: usize) -> Result<(), Vec<u8>> {
        // SAFETY: the buffer is kept in `tx_bufs` under its token until the
        // device reports it used (`reclaim`).
        let token = unsafe { self.tx.add(&[&buf[..end]], &mut []) };
        match token {
            Ok(t) => match self.tx_bufs.get_mut(t as usize) {
                Some(slot) => *slot = Some((buf, end)),
                // The crate never numbers a token past the queue.
                None => core::mem::forget(buf),
            },
            Err(_) => return Err(buf),
        }
        self.unnotified += 1;
        self.frames_out += 1;
        Ok(())
    }

    /// Tells the device about the frames queued since it was last told.
    pub fn flush(&mut self, transport: &mut VirtioTransport) {
        if self.unnotified > 0 {
            self.unnotified = 0;
            if self.tx.should_notify() {
                transport.notify(self.txq);
            }
        }
    }
}
