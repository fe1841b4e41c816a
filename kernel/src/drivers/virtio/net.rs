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
//! MAC, STATUS, VERSION_1, CTRL_VQ and MQ (below). Not EVENT_IDX: the crate's `should_notify`
//! compares the event index without wrapping, which after 65,536 frames can
//! skip a needed notification; we use the ring's flags instead.
//!
//! Queues: QUEUE entries each way, boxed (netpair.rs). With MQ and
//! CTRL_VQ (a tap QEMU opened with `queues=N`: internal/qemu net.go) one
//! pair per CPU, as many as the device has and a quarter of the kernel
//! heap holds (kernel/core `virtionetmq.rs`),
//! turned on with VQ_PAIRS_SET on the control queue; if the device refuses
//! that, one pair, and a boot line says so. A frame is sent on its flow's
//! pair (a flow spread over pairs would arrive reordered); received
//! packets are taken from every pair in turn. One descriptor per frame: the header shares the frame's buffer.
//!
//! How far that goes: the device has one interrupt for all its queues
//! (virtio-mmio has one line; our virtio-pci uses INTx, no MSI-X), and the
//! whole device is behind the NIC lock with the one smoltcp Interface
//! (net/nic/poll.rs), so the pairs take frames in and out in parallel on
//! the host's side (QEMU or vhost-net, one tap queue each) but not in the
//! guest: here they spare the host's single queue, not our lock.

use crate::drivers::virtio::netpair::{Pair, QUEUE as PAIR_QUEUE};
use crate::drivers::virtio::VirtioTransport;
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use gometal_core::drivers::virtionet::{self as vn, NetHdr};
use gometal_core::drivers::virtionetmq as mq;
use virtio_drivers::queue::VirtQueue;
use virtio_drivers::transport::{DeviceStatus, Transport};

/// Descriptors per queue (QEMU's virtio-net offers 256).
pub const QUEUE: usize = PAIR_QUEUE;
/// Descriptors of the control queue (QEMU's has 64; one command at a time).
const CTRL_QUEUE: usize = 8;
type CtrlQueue = VirtQueue<crate::drivers::virtio::hal::KernelHal, CTRL_QUEUE>;
/// How long the device may take to answer a control command.
const CTRL_WAIT_NS: u64 = 1_000_000_000;
/// A transmit buffer for one MTU-sized frame and its header; larger
/// (segmentation-offload) frames get buffers of their own size.
const FRAME: usize = 1536;
/// The share of the kernel heap the queue pairs' buffers may take
/// (a quarter: with large receive a pair holds 1.4 MiB).
const RINGS_HEAP_SHARE: usize = 4;
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
    /// The pair it came in on.
    pair: usize,
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
    /// The pairs in use (`pairs.len()`), pair k on queues 2k and 2k+1.
    pairs: Vec<Pair>,
    /// Pairs the device has queues for but that are not used (VQ_PAIRS_SET
    /// was refused): kept, as the device knows their rings' addresses.
    _unused: Vec<Pair>,
    _ctrl: Option<Box<CtrlQueue>>,
    /// Why the device runs on one pair though it offered more (for a boot line).
    pub mq_refused: Option<&'static str>,
    /// The pair `receive` looks at first (each is taken from in turn).
    next_rx: usize,
    features: u64,
    hdr_len: usize,
    mac: [u8; 6],
    rx_size: usize,
    spare: Vec<Vec<u8>>,
    spare_big: Vec<Vec<u8>>,
    /// A merged packet's buffer, kept for the next one.
    merge_spare: Option<Vec<u8>>,
}

impl VirtioNet {
    /// Resets and starts the device with our features, one queue pair per
    /// CPU (of `cpus`) where it offers several, and full rings of receive
    /// buffers.
    pub fn new(mut transport: VirtioTransport, cpus: usize) -> Result<VirtioNet, Error> {
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
        let hdr_len = vn::header_len(features);
        // Mergeable buffers: a page each (a 64 KiB packet takes 16);
        // otherwise one buffer must hold any packet the device may send.
        let lro = features & (vn::F_GUEST_TSO4 | vn::F_GUEST_TSO6) != 0;
        let rx_size = if features & vn::F_MRG_RXBUF != 0 { if lro { 4096 } else { FRAME } } else if lro { 65550 + hdr_len } else { FRAME };
        let max_pairs = if features & mq::F_MQ != 0 { transport.read_config_space::<u16>(mq::MAX_PAIRS_OFFSET).unwrap_or(1) } else { 1 };
        // A pair's buffers are kernel heap: the pairs take at most
        // RINGS_HEAP_SHARE of it (with 64 CPUs they would take all of it).
        let room = crate::mm::heap::total() / RINGS_HEAP_SHARE / (QUEUE * (rx_size + FRAME));
        let want = mq::pairs(features, max_pairs, cpus, room);
        let mut pairs = Vec::with_capacity(want);
        for k in 0..want {
            pairs.push(Pair::new(&mut transport, mq::rx_queue(k), mq::tx_queue(k)).map_err(Error::Queue)?);
        }
        let ctrl_idx = mq::ctrl_queue(features, max_pairs);
        let mut ctrl = None;
        if features & mq::F_CTRL_VQ != 0 {
            ctrl = Some(Box::new(CtrlQueue::new(&mut transport, ctrl_idx, false, false).map_err(Error::Queue)?));
        }
        transport.finish_init();
        let mut mq_refused = None;
        if want > 1 {
            if let Err(why) = set_pairs(&mut transport, ctrl.as_deref_mut(), ctrl_idx, want) {
                mq_refused = Some(why);
            }
        }
        let unused = if mq_refused.is_some() { pairs.split_off(1) } else { Vec::new() };
        let mut dev = VirtioNet {
            transport,
            pairs,
            _unused: unused,
            _ctrl: ctrl,
            mq_refused,
            next_rx: 0,
            features,
            hdr_len,
            mac,
            rx_size,
            spare: Vec::new(),
            spare_big: Vec::new(),
            merge_spare: None,
        };
        for k in 0..dev.pairs.len() {
            for _ in 0..QUEUE {
                let b = vec![0; dev.rx_size];
                dev.pairs[k].post_rx(b);
                dev.spare.push(vec![0; FRAME]);
            }
            dev.pairs[k].notify_rx(&mut dev.transport);
        }
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

    /// The queue pairs in use.
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }

    /// (packets received, frames sent) on each pair.
    pub fn pair_frames(&self) -> Vec<(u64, u64)> {
        self.pairs.iter().map(|p| (p.frames_in, p.frames_out)).collect()
    }

    /// Acknowledges the device's interrupt.
    pub fn ack_interrupt(&mut self) {
        let _ = self.transport.ack_interrupt();
    }

    /// Hands a receive buffer back to pair `k`'s device queue (a fresh one
    /// if it is not a receive buffer's size).
    fn post_rx(&mut self, k: usize, mut buf: Vec<u8>) {
        if buf.len() != self.rx_size {
            buf = vec![0; self.rx_size];
        }
        self.pairs[k].post_rx(buf);
    }

    /// Gives a received frame's buffer back to the device.
    pub fn recycle(&mut self, f: RxFrame) {
        if f.own {
            self.post_rx(f.pair, f.buf);
            self.pairs[f.pair].notify_rx(&mut self.transport);
        } else if self.merge_spare.as_ref().is_none_or(|b| b.capacity() < f.buf.capacity()) {
            self.merge_spare = Some(f.buf);
        }
    }

    /// Whether a received packet waits.
    pub fn has_rx(&self) -> bool {
        self.pairs.iter().any(|p| p.rx.can_pop())
    }

    /// The next received packet, from each pair in turn.
    pub fn receive(&mut self) -> Option<RxFrame> {
        let n = self.pairs.len();
        for i in 0..n {
            let k = (self.next_rx + i) % n;
            if let Some(f) = self.receive_on(k) {
                self.next_rx = (k + 1) % n;
                self.pairs[k].frames_in += 1;
                return Some(f);
            }
        }
        None
    }

    /// The next packet received on pair `k`, its buffers merged when the
    /// device used several (MRG_RXBUF).
    fn receive_on(&mut self, k: usize) -> Option<RxFrame> {
        loop {
            let (buf, len) = self.pairs[k].pop_rx()?;
            let Some(hdr) = NetHdr::decode(&buf, self.hdr_len).filter(|_| len >= self.hdr_len) else {
                self.post_rx(k, buf);
                self.pairs[k].notify_rx(&mut self.transport);
                continue;
            };
            let n = if self.features & vn::F_MRG_RXBUF != 0 { hdr.num_buffers.max(1) as usize } else { 1 };
            if n == 1 {
                return Some(RxFrame { buf, start: self.hdr_len, len: len - self.hdr_len, hdr, own: true, pair: k });
            }
            // The device completes a packet's buffers together, on one queue.
            let mut merged = self.merge_spare.take().unwrap_or_default();
            merged.clear();
            merged.reserve(len - self.hdr_len + (n - 1) * self.rx_size);
            merged.extend_from_slice(&buf[self.hdr_len..len]);
            self.post_rx(k, buf);
            let mut whole = true;
            for _ in 1..n {
                match self.pairs[k].pop_rx() {
                    Some((b, l)) => {
                        merged.extend_from_slice(&b[..l]);
                        self.post_rx(k, b);
                    }
                    None => {
                        whole = false;
                        break;
                    }
                }
            }
            self.pairs[k].notify_rx(&mut self.transport);
            if whole {
                let len = merged.len();
                return Some(RxFrame { buf: merged, start: 0, len, hdr, own: false, pair: k });
            }
        }
    }

    /// Takes back the transmit buffers the device has finished with.
    pub fn reclaim(&mut self) {
        let (spare, spare_big) = (&mut self.spare, &mut self.spare_big);
        for p in &mut self.pairs {
            p.reclaim(|buf| {
                if buf.len() == FRAME {
                    spare.push(buf);
                } else if spare_big.len() < BIG_SPARES {
                    spare_big.push(buf);
                }
            });
        }
    }

    /// Whether every pair has room for a frame (which one a frame takes
    /// is known only once it is written).
    pub fn can_send(&self) -> bool {
        self.pairs.iter().all(|p| p.tx.available_desc() > 0)
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

    /// Queues `buf` (header space, then a `len`-byte frame) with `hdr` on
    /// the pair of flow `flow` (`mq::pair_of_flow`). A frame the queue
    /// refuses is lost, as on a congested wire.
    pub fn send(&mut self, mut buf: Vec<u8>, len: usize, hdr: &NetHdr, flow: usize) -> bool {
        let end = (self.hdr_len + len).min(buf.len());
        hdr.encode(&mut buf[..self.hdr_len]);
        let k = mq::pair_of_flow(flow, self.pairs.len());
        if let Err(buf) = self.pairs[k].send(buf, end) {
            if buf.len() == FRAME {
                self.spare.push(buf);
            }
            return false;
        }
        if self.pairs[k].unnotified >= NOTIFY_EVERY {
            self.pairs[k].flush(&mut self.transport);
        }
        true
    }

    /// Tells the device about the frames queued since it was last told.
    pub fn flush(&mut self) {
        for p in &mut self.pairs {
            p.flush(&mut self.transport);
        }
    }
}

/// Turns `n` queue pairs on (VQ_PAIRS_SET on control queue `idx`) and
/// waits for the device's ack; Err says why not.
fn set_pairs(transport: &mut VirtioTransport, ctrl: Option<&mut CtrlQueue>, idx: u16, n: usize) -> Result<(), &'static str> {
    let ctrl = ctrl.ok_or("no control queue")?;
    let (h, d) = mq::pairs_set_command(n);
    // On the heap, as every buffer the device is given (the HAL shares
    // kernel heap addresses), and leaked should the device not answer.
    let (hdr, data, mut ack) = (Vec::from(h), Vec::from(d), vec![0xffu8]);
    // SAFETY: the buffers are not touched until the token is popped below,
    // or, when the device does not answer, never again (leaked).
    let token = unsafe { ctrl.add(&[&hdr, &data], &mut [&mut ack]) }.map_err(|_| "control queue full")?;
    if ctrl.should_notify() {
        transport.notify(idx);
    }
    let until = crate::sched::clock::monotonic_ns() + CTRL_WAIT_NS;
    while !ctrl.can_pop() {
        if crate::sched::clock::monotonic_ns() >= until {
            core::mem::forget((hdr, data, ack));
            return Err("the device did not answer VQ_PAIRS_SET");
        }
        core::hint::spin_loop();
    }
    // SAFETY: the buffers `add` was given for `token`.
    unsafe { ctrl.pop_used(token, &[&hdr, &data], &mut [&mut ack]) }.map_err(|_| "control queue answer out of order")?;
    if mq::ack_ok(ack[0]) {
        Ok(())
    } else {
        Err("the device refused VQ_PAIRS_SET")
    }
}
