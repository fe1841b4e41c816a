//! The virtio-net device as smoltcp sees it: one received packet per
//! `receive` (its buffer goes back to the device once smoltcp has read it)
//! and one transmit buffer per frame sent, over our own driver
//! (drivers/virtio/net.rs), whose offloads become smoltcp's capabilities:
//!
//! - checksum offload (the device offers it with a tap backend, not with
//!   QEMU's user network): smoltcp leaves TCP checksums out on transmit and
//!   the frame goes with a partial checksum (kernel/core `virtionet.rs`);
//!   on receive smoltcp never checks TCP checksums, this file does, for
//!   packets the device did not vouch for (DATA_VALID or NEEDS_CSUM);
//! - segmentation offload (HOST_TSO4): smoltcp's `segmentation-offload`
//!   hands the device TCP segments of up to TSO_BYTES with the MSS to cut
//!   them at (PacketMeta), which become GSO headers. IPv6 is not offered:
//!   smoltcp 0.14 drops an IPv6 packet larger than the MTU before it looks
//!   at the segmentation size (iface/interface/mod.rs, "IPv6 fragmentation
//!   support is unimplemented");
//! - large receive (GUEST_TSO4/6 with mergeable buffers): packets up to
//!   64 KiB come in merged, and smoltcp takes them (it does not hold
//!   received packets to the MTU).
//!
//! With several queue pairs (multiqueue) a frame goes out on its flow's
//! pair (kernel/core `virtionetmq::pair_of_flow`), and packets come in
//! from every pair.
//!
//! Sending never waits for the device. A frame is queued and its buffer
//! comes back when the device reports it used (`reclaim`); the device is
//! told at the end of each poll (`flush`) or every few frames.

use crate::drivers::virtio::net::{Offloads, RxFrame, VirtioNet};
use crate::drivers::virtio::VirtioTransport;
use core::marker::PhantomData;
use core::num::NonZeroUsize;
use gometal_core::drivers::virtionet::{self as vn, NetHdr};
use smoltcp::phy::{self, Checksum, DeviceCapabilities, Medium, PacketMeta};
use smoltcp::time::Instant;

pub use crate::drivers::virtio::net::QUEUE;

/// The largest frame handed to the device for segmentation: an IPv4
/// packet's length field holds 65,535 bytes; Linux hands 64 KiB.
const TSO_BYTES: usize = 62 * 1024;

pub struct NetDevice {
    pub net: VirtioNet,
    offloads: Offloads,
    /// A received packet taken from the device and looked at (`peek`) but
    /// not yet given to smoltcp.
    staged: Option<RxFrame>,
}

impl NetDevice {
    /// The device, with a queue pair for each of `cpus` CPUs where it
    /// offers several.
    pub fn new(transport: VirtioTransport, cpus: usize) -> Result<NetDevice, crate::drivers::virtio::net::Error> {
        let net = VirtioNet::new(transport, cpus)?;
        let offloads = net.offloads();
        Ok(NetDevice { net, offloads, staged: None })
    }

    pub fn offloads(&self) -> Offloads {
        self.offloads
    }

    /// Whether a received packet waits.
    pub fn has_frames(&self) -> bool {
        self.staged.is_some() || self.net.has_rx()
    }

    /// The next received frame, to see which socket set it is for before
    /// smoltcp takes it (`receive`).
    pub fn peek(&mut self) -> Option<&[u8]> {
        if self.staged.is_none() {
            self.staged = self.take_frame();
        }
        self.staged.as_ref().map(RxFrame::frame)
    }

    /// The next received packet whose TCP checksum is right (checked here
    /// unless the device vouched for it); a partial UDP or ICMP checksum
    /// is completed, since the kernel's UDP code checks its own.
    fn take_frame(&mut self) -> Option<RxFrame> {
        loop {
            let mut f = self.net.receive()?;
            super::stats::FRAMES_BIG.add((f.len > 1514) as u64);
            let flags = if self.offloads.csum_rx { f.hdr.flags } else { 0 };
            let ok = if flags & vn::NEEDS_CSUM != 0 {
                let (start, off) = (f.hdr.csum_start as usize, f.hdr.csum_offset as usize);
                vn::is_tcp(f.frame()) || vn::complete_checksum(f.frame_mut(), start, off)
            } else {
                flags & vn::DATA_VALID != 0 || vn::tcp_checksum_ok(f.frame())
            };
            if ok {
                return Some(f);
            }
            super::stats::FRAMES_BAD.add(1);
            self.net.recycle(f);
        }
    }

    /// Takes back the transmit buffers the device has finished with.
    pub fn reclaim(&mut self) {
        self.net.reclaim();
    }

    /// Tells the device about what was queued.
    pub fn flush(&mut self) {
        self.net.flush();
    }
}

/// Which flow a frame belongs to, for its queue pair: a TCP connection's
/// socket set (the same hash that routes its received segments), else 0.
fn flow_key(frame: &[u8]) -> usize {
    match gometal_core::net::netshard::route(frame) {
        gometal_core::net::netshard::Route::Tcp { shard, .. } => shard,
        _ => 0,
    }
}

/// The tokens point at the device rather than borrow it: smoltcp sends a
/// reply (a transmit token) from inside a receive token's `consume`, so the
/// two are alive at once, though each touches the device only in turn.
pub struct Rx<'a>(*mut NetDevice, Option<RxFrame>, PhantomData<&'a mut NetDevice>);
pub struct Tx<'a>(*mut NetDevice, Option<core::num::NonZeroU16>, PhantomData<&'a mut NetDevice>);

impl phy::Device for NetDevice {
    type RxToken<'a> = Rx<'a>;
    type TxToken<'a> = Tx<'a>;

    fn receive(&mut self, _now: Instant) -> Option<(Rx<'_>, Tx<'_>)> {
        self.reclaim();
        let f = match self.staged.take() {
            Some(f) => f,
            None => self.take_frame()?,
        };
        let dev: *mut NetDevice = self;
        Some((Rx(dev, Some(f), PhantomData), Tx(dev, None, PhantomData)))
    }

    fn transmit(&mut self, _now: Instant) -> Option<Tx<'_>> {
        self.reclaim();
        if !self.net.can_send() {
            return None;
        }
        Some(Tx(self, None, PhantomData))
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ethernet;
        caps.max_transmission_unit = 1514;
        caps.max_burst_size = Some(QUEUE / 2);
        // Received TCP checksums are checked in take_frame.
        caps.checksum.tcp = if self.offloads.csum_tx { Checksum::None } else { Checksum::Tx };
        if self.offloads.csum_tx && self.offloads.tso4 {
            caps.segmentation.tcpv4 = NonZeroUsize::new(TSO_BYTES);
        }
        caps
    }
}

impl phy::RxToken for Rx<'_> {
    fn consume<R, F: FnOnce(&[u8]) -> R>(mut self, f: F) -> R {
        let frame = self.1.take().expect("a receive token holds its packet");
        let r = f(frame.frame());
        // SAFETY: the device outlives the token ('a), and no other
        // reference to it is in use while this line runs (see Rx).
        let dev = unsafe { &mut *self.0 };
        dev.net.recycle(frame);
        r
    }
}

impl phy::TxToken for Tx<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        // SAFETY: as in Rx::consume: the device outlives the token and is
        // used by nothing else while this runs.
        let dev = unsafe { &mut *self.0 };
        let mut buf = dev.net.tx_buffer(len);
        let hl = dev.net.header_len();
        let end = (hl + len).min(buf.len());
        let r = f(&mut buf[hl..end]);
        let hdr = if dev.offloads.csum_tx {
            let mss = self.1.map(|m| m.get()).filter(|_| dev.offloads.tso4);
            vn::tx_offload(&mut buf[hl..end], mss).unwrap_or_default()
        } else {
            NetHdr::default()
        };
        let flow = flow_key(&buf[hl..end]);
        if dev.net.send(buf, end - hl, &hdr, flow) {
            super::stats::FRAMES_OUT.add(1);
            super::stats::FRAMES_TSO.add((hdr.gso_size != 0) as u64);
        }
        r
    }

    fn set_meta(&mut self, meta: PacketMeta) {
        self.1 = meta.segmentation_offload_size;
    }
}
