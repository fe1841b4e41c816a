//! Our virtio-net driver, on the `virtio-drivers` crate's transports
//! (`SomeTransport`: virtio-mmio or virtio-pci) and split virtqueue
//! (`VirtQueue`).
//!
//! Why not the crate's `VirtIONetRaw`/`VirtIONet`: they negotiate none of
//! virtio-net's offloads (only MAC, STATUS, EVENT_IDX, INDIRECT_DESC,
//! VERSION_1), always write an all-zero `virtio_net_hdr`, and read only the
//! header's length on receive, so neither checksum offload, segmentation
//! offload (TSO) nor mergeable receive buffers can be used through them.
//! The queues and the transport are fine and are used as they are; what
//! this file adds is the device's bring-up with our feature set, the
//! header on every frame, and receive buffers merged across descriptors.
//! What to accept and how to fill the header is pure logic, in
//! kernel/core `virtionet.rs`; this driver does not know smoltcp
//! (net/nic/device.rs adapts it).
//!
//! Features: CSUM and GUEST_CSUM, HOST_TSO4/6 and GUEST_TSO4/6 (a device
//! offers them only when its backend takes virtio-net headers: QEMU's tap,
//! not its user network), MRG_RXBUF (a received packet may span several
//! buffers: what GUEST_TSO's 64 KiB packets need without 64 KiB buffers),
//! MAC, STATUS, VERSION_1. Not EVENT_IDX: the crate's `should_notify`
//! compares the event index without wrapping, which after 65,536 frames can
//! skip a needed notification; we use the ring's flags instead.
//!
//! Queues: QUEUE entries each way, boxed (the crate keeps a queue's shadow
//! descriptors inline; built on a CPU's 32 KiB stack they overflowed it).
//! One descriptor per frame: the header shares the frame's buffer.

use crate::drivers::virtio::hal::KernelHal;
use crate::drivers::virtio::VirtioTransport;
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use gometal_core::virtionet::{self as vn, NetHdr};
use virtio_drivers::queue::VirtQueue;
use virtio_drivers::transport::{DeviceStatus, Transport};

/// Descriptors per queue (QEMU's virtio-net offers 256).
pub const QUEUE: usize = 256;
const RXQ: u16 = 0;
const TXQ: u16 = 1;
/// A transmit buffer for one MTU-sized frame and its header; larger
/// (segmentation-offload) frames get buffers of their own size.
const FRAME: usize = 1536;
/// Big transmit buffers kept for reuse.
const BIG_SPARES: usize = 32;
/// The notifications a burst of transmits may owe before the device is
/// told (`flush` tells it at the end of every poll).
const NOTIFY_EVERY: usize = 32;

/// What the device does for us.
#[derive(Clone, Copy, Debug, Default)]
pub struct Offloads {
    /// We may leave TCP checksums partial on transmit (VIRTIO_NET_F_CSUM).
    pub csum_tx: bool,
    /// Received packets may come checked or partial (GUEST_CSUM).
    pub csum_rx: bool,
    /// The device segments TCP over IPv4 / IPv6 (HOST_TSO4/6).
    pub tso4: bool,
    pub tso6: bool,
    /// Received packets may be larger than the MTU (GUEST_TSO4/6).
    pub lro: bool,
}

/// A received packet: the frame is `buf[start..start + len]`.
pub struct RxFrame {
    pub buf: Vec<u8>,
    pub start: usize,
    pub len: usize,
    pub hdr: NetHdr,
    /// Whether `buf` is a receive buffer (to be given back) or a merged copy.
    own: bool,
}

impl RxFrame {
    pub fn frame(&self) -> &[u8] {
        self.buf.get(self.start..self.start + self.len).unwrap_or(&[])
    }
    pub fn frame_mut(&mut self) -> &mut [u8] {
        let end = self.start + self.len;
        self.buf.get_mut(self.start..end).unwrap_or(&mut [])
    }
}

#[derive(Debug)]
pub enum Error {
    /// The device refused our features or a queue.
    Setup(&'static str),
    Queue(virtio_drivers::Error),
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Setup(why) => f.write_str(why),
            Error::Queue(e) => write!(f, "queue: {e:?}"),
        }
    }
}

pub struct VirtioNet {
    transport: VirtioTransport,
    rx: Box<VirtQueue<KernelHal, QUEUE>>,
    tx: Box<VirtQueue<KernelHal, QUEUE>>,
    features: u64,
    hdr_len: usize,
    mac: [u8; 6],
    rx_size: usize,
    /// Receive buffers the device holds, by token.
    rx_bufs: Vec<Option<Vec<u8>>>,
    /// Frames being sent, by token, with their length.
    tx_bufs: Vec<Option<(Vec<u8>, usize)>>,
    spare: Vec<Vec<u8>>,
    spare_big: Vec<Vec<u8>>,
    /// Transmits since the device was last told.
    unnotified: usize,
    /// A merged packet's buffer, kept for the next one.
    merge_spare: Option<Vec<u8>>,
}

/// One queue, boxed, in a frame of its own: a `VirtQueue` of QUEUE entries
/// is 8 KiB; two of them built in `new`'s frame (with the moves into their
/// boxes) made it 41 KiB on arm64, and with `VirtQueue::new`'s own 16 KiB
/// under it the boot overflowed its 64 KiB stack. This frame is 25 KiB.
#[inline(never)]
fn boxed_queue(transport: &mut VirtioTransport, idx: u16) -> Result<Box<VirtQueue<KernelHal, QUEUE>>, Error> {
    Ok(Box::new(VirtQueue::new(transport, idx, false, false).map_err(Error::Queue)?))
}

impl VirtioNet {
    /// Resets and starts the device with our features and a full ring of
    /// receive buffers.
    pub fn new(mut transport: VirtioTransport) -> Result<VirtioNet, Error> {
        transport.set_status(DeviceStatus::empty());
        transport.set_status(DeviceStatus::ACKNOWLEDGE | DeviceStatus::DRIVER);
        let features = vn::choose(transport.read_device_features());
        transport.write_driver_features(features);
        transport.set_status(DeviceStatus::ACKNOWLEDGE | DeviceStatus::DRIVER | DeviceStatus::FEATURES_OK);
        if !transport.get_status().contains(DeviceStatus::FEATURES_OK) {
            return Err(Error::Setup("features refused"));
        }
        transport.set_guest_page_size(crate::memlayout::PAGE_SIZE as u32);
        let mut mac = [0u8; 6];
        for (i, b) in mac.iter_mut().enumerate() {
            *b = transport.read_config_space::<u8>(i).unwrap_or(0);
        }
        let rx = boxed_queue(&mut transport, RXQ)?;
        let tx = boxed_queue(&mut transport, TXQ)?;
        transport.finish_init();
        let hdr_len = vn::header_len(features);
        // Mergeable buffers: a page each (a 64 KiB packet takes 16);
        // otherwise one buffer must hold any packet the device may send.
        let lro = features & (vn::F_GUEST_TSO4 | vn::F_GUEST_TSO6) != 0;
        let rx_size = if features & vn::F_MRG_RXBUF != 0 { if lro { 4096 } else { FRAME } } else if lro { 65550 + hdr_len } else { FRAME };
        let mut dev = VirtioNet {
            transport,
            rx,
            tx,
            features,
            hdr_len,
            mac,
            rx_size,
            rx_bufs: (0..QUEUE).map(|_| None).collect(),
            tx_bufs: (0..QUEUE).map(|_| None).collect(),
            spare: Vec::new(),
            spare_big: Vec::new(),
            unnotified: 0,
            merge_spare: None,
        };
        for _ in 0..QUEUE {
            let b = vec![0; dev.rx_size];
            dev.post_rx(b);
            dev.spare.push(vec![0; FRAME]);
        }
        dev.notify_rx();
        Ok(dev)
    }

    pub fn mac(&self) -> [u8; 6] {
        self.mac
    }

    pub fn offloads(&self) -> Offloads {
        let f = self.features;
        Offloads {
            csum_tx: f & vn::F_CSUM != 0,
            csum_rx: f & vn::F_GUEST_CSUM != 0,
            tso4: f & vn::F_HOST_TSO4 != 0,
            tso6: f & vn::F_HOST_TSO6 != 0,
            lro: f & (vn::F_GUEST_TSO4 | vn::F_GUEST_TSO6) != 0,
        }
    }

    /// Acknowledges the device's interrupt.
    pub fn ack_interrupt(&mut self) {
        let _ = self.transport.ack_interrupt();
    }

    /// Hands a receive buffer to the device (dropped if the ring refuses
    /// it: that only shrinks the ring).
    fn post_rx(&mut self, mut buf: Vec<u8>) {
        if buf.len() != self.rx_size {
            buf = vec![0; self.rx_size];
        }
        // SAFETY: the buffer is kept in `rx_bufs` under its token and not
        // touched until the device has used it (`take` pops that token).
        let token = unsafe { self.rx.add(&[], &mut [buf.as_mut_slice()]) };
        if let Ok(t) = token {
            if let Some(slot) = self.rx_bufs.get_mut(t as usize) {
                *slot = Some(buf);
            }
        }
    }

    fn notify_rx(&mut self) {
        if self.rx.should_notify() {
            self.transport.notify(RXQ);
        }
    }

    /// Gives a received frame's buffer back to the device.
    pub fn recycle(&mut self, f: RxFrame) {
        if f.own {
            self.post_rx(f.buf);
            self.notify_rx();
        } else if self.merge_spare.as_ref().is_none_or(|b| b.capacity() < f.buf.capacity()) {
            self.merge_spare = Some(f.buf);
        }
    }

    /// Whether a received packet waits.
    pub fn has_rx(&self) -> bool {
        self.rx.can_pop()
    }

    /// Pops one used receive buffer: (buffer, bytes the device wrote).
    fn pop_rx(&mut self) -> Option<(Vec<u8>, usize)> {
        let token = self.rx.peek_used()?;
        let mut buf = self.rx_bufs.get_mut(token as usize)?.take()?;
        // SAFETY: `buf` is the buffer `add` was given for `token`.
        let len = unsafe { self.rx.pop_used(token, &[], &mut [buf.as_mut_slice()]) }.ok()?;
        Some((buf, (len as usize).min(self.rx_size)))
    }

    /// The next received packet, its buffers merged when the device used
    /// several (MRG_RXBUF).
    pub fn receive(&mut self) -> Option<RxFrame> {
        loop {
            let (buf, len) = self.pop_rx()?;
            let Some(hdr) = NetHdr::decode(&buf, self.hdr_len).filter(|_| len >= self.hdr_len) else {
                self.post_rx(buf);
                self.notify_rx();
                continue;
            };
            let n = if self.features & vn::F_MRG_RXBUF != 0 { hdr.num_buffers.max(1) as usize } else { 1 };
            if n == 1 {
                return Some(RxFrame { buf, start: self.hdr_len, len: len - self.hdr_len, hdr, own: true });
            }
            // The device completes a packet's buffers together.
            let mut merged = self.merge_spare.take().unwrap_or_default();
            merged.clear();
            merged.reserve(len - self.hdr_len + (n - 1) * self.rx_size);
            merged.extend_from_slice(&buf[self.hdr_len..len]);
            self.post_rx(buf);
            let mut whole = true;
            for _ in 1..n {
                match self.pop_rx() {
                    Some((b, l)) => {
                        merged.extend_from_slice(&b[..l]);
                        self.post_rx(b);
                    }
                    None => {
                        whole = false;
                        break;
                    }
                }
            }
            self.notify_rx();
            if whole {
                let len = merged.len();
                return Some(RxFrame { buf: merged, start: 0, len, hdr, own: false });
            }
        }
    }

    /// Takes back the transmit buffers the device has finished with.
    pub fn reclaim(&mut self) {
        while let Some(token) = self.tx.peek_used() {
            let Some((buf, len)) = self.tx_bufs.get_mut(token as usize).and_then(Option::take) else { break };
            // SAFETY: the same buffer (and length) that `add` was given.
            let _ = unsafe { self.tx.pop_used(token, &[&buf[..len]], &mut []) };
            if buf.len() == FRAME {
                self.spare.push(buf);
            } else if self.spare_big.len() < BIG_SPARES {
                self.spare_big.push(buf);
            }
        }
    }

    pub fn can_send(&self) -> bool {
        self.tx.available_desc() > 0
    }

    /// A buffer for a frame of `len` bytes; the frame goes at
    /// `header_len()`.
    pub fn tx_buffer(&mut self, len: usize) -> Vec<u8> {
        let need = self.hdr_len + len;
        if need <= FRAME {
            return self.spare.pop().unwrap_or_else(|| vec![0; FRAME]);
        }
        match self.spare_big.iter().position(|b| b.len() >= need) {
            Some(i) => self.spare_big.swap_remove(i),
            None => vec![0; need.max(16 * 1024)],
        }
    }

    pub fn header_len(&self) -> usize {
        self.hdr_len
    }

    /// Queues `buf` (header space, then a `len`-byte frame) with `hdr`. A
    /// frame the queue refuses is lost, as on a congested wire.
    pub fn send(&mut self, mut buf: Vec<u8>, len: usize, hdr: &NetHdr) -> bool {
        let end = (self.hdr_len + len).min(buf.len());
        hdr.encode(&mut buf[..self.hdr_len]);
        // SAFETY: the buffer is kept in `tx_bufs` under its token until the
        // device reports it used (`reclaim`).
        let token = unsafe { self.tx.add(&[&buf[..end]], &mut []) };
        match token {
            Ok(t) => match self.tx_bufs.get_mut(t as usize) {
                Some(slot) => *slot = Some((buf, end)),
                // The crate never numbers a token past the queue.
                None => core::mem::forget(buf),
            },
            Err(_) => {
                if buf.len() == FRAME {
                    self.spare.push(buf);
                }
                return false;
            }
        }
        self.unnotified += 1;
        if self.unnotified >= NOTIFY_EVERY {
            self.flush();
        }
        true
    }

    /// Tells the device about the frames queued since it was last told.
    pub fn flush(&mut self) {
        if self.unnotified > 0 {
            self.unnotified = 0;
            if self.tx.should_notify() {
                self.transport.notify(TXQ);
            }
        }
    }
}
