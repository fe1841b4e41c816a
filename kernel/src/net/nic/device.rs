//! The virtio-net device as smoltcp sees it: one received frame per
//! `receive` (its buffer goes back to the device once smoltcp has read it)
//! and one transmit buffer per frame sent. The `virtio-drivers` crate's
//! `VirtIONetRaw` does the queues; this file keeps the buffers and adapts
//! it to smoltcp's `Device` trait.
//!
//! Sending never waits for the device. The crate's `VirtIONet::send`
//! spins until the device has taken the frame, and under QEMU that is
//! when QEMU's main loop thread has run: with more CPUs than host cores
//! that thread waits for a host core while the sending CPU spins holding
//! the NIC lock and other CPUs spin for the lock (transfers at 4 CPUs
//! stalled for up to 0.5 s per poll before this). Here a frame is queued
//! and its buffer comes back when the device reports it used (`reclaim`).

use crate::drivers::virtio::hal::KernelHal;
use crate::drivers::virtio::Mmio;
use alloc::vec;
use alloc::vec::Vec;
use core::marker::PhantomData;
use smoltcp::phy::{self, DeviceCapabilities, Medium};
use smoltcp::time::Instant;
use virtio_drivers::device::net::VirtIONetRaw;

/// Receive and transmit queue depth (QEMU offers 256). The crate keeps a
/// queue's shadow descriptors inline, and the device is built on the boot
/// CPU's 32 KiB stack: 128 overflowed it (the kernel's data below was
/// overwritten), 64 leaves room.
pub const QUEUE: usize = 64;
/// A frame buffer: one Ethernet frame plus the virtio-net header (the
/// crate wants 1526 bytes at least for receiving).
pub const FRAME: usize = 2048;

pub type Net = VirtIONetRaw<KernelHal, Mmio, QUEUE>;

pub struct NetDevice {
    pub net: Net,
    /// Receive buffers the device holds, by its token.
    rx: Vec<Option<Vec<u8>>>,
    /// Frames the device is sending, by token, with the length it was given.
    tx: Vec<Option<(Vec<u8>, usize)>>,
    /// Transmit buffers not in use (a full queue's worth, made at boot).
    spare: Vec<Vec<u8>>,
    /// A received frame taken from the device and looked at (`peek`) but
    /// not yet given to smoltcp: (buffer, header length, frame length).
    staged: Option<(Vec<u8>, usize, usize)>,
}

impl NetDevice {
    /// Starts the device and gives it a full ring of receive buffers.
    pub fn new(transport: Mmio) -> Result<NetDevice, virtio_drivers::Error> {
        let net = Net::new(transport)?;
        let mut dev = NetDevice { net, rx: vec![None; QUEUE], tx: vec![None; QUEUE], spare: Vec::new(), staged: None };
        for _ in 0..QUEUE {
            dev.post_rx(vec![0; FRAME]);
            dev.spare.push(vec![0; FRAME]);
        }
        Ok(dev)
    }

    /// Hands a receive buffer to the device (dropped if the ring refuses it:
    /// that only shrinks the ring).
    fn post_rx(&mut self, mut buf: Vec<u8>) {
        // SAFETY: the buffer is kept in `rx` under its token and not touched
        // until the device has used it (`receive` takes it back only after
        // `poll_receive` returned that token).
        if let Ok(token) = unsafe { self.net.receive_begin(&mut buf) } {
            if let Some(slot) = self.rx.get_mut(token as usize) {
                *slot = Some(buf);
            }
        }
    }

    /// Whether a received frame waits.
    pub fn has_frames(&self) -> bool {
        self.staged.is_some() || self.net.poll_receive().is_some()
    }

    /// The next received frame, to see which socket set it is for before
    /// smoltcp takes it (`receive`).
    pub fn peek(&mut self) -> Option<&[u8]> {
        if self.staged.is_none() {
            self.staged = self.take_frame();
        }
        let (buf, hdr, len) = self.staged.as_ref()?;
        buf.get(*hdr..*hdr + *len)
    }

    /// Takes the next frame the device received: (buffer, header, length).
    fn take_frame(&mut self) -> Option<(Vec<u8>, usize, usize)> {
        let token = self.net.poll_receive()?;
        let mut buf = self.rx.get_mut(token as usize)?.take()?;
        // SAFETY: `buf` is the buffer `receive_begin` was given for `token`.
        match unsafe { self.net.receive_complete(token, &mut buf) } {
            Ok((hdr, len)) => Some((buf, hdr, len)),
            Err(_) => {
                self.post_rx(buf);
                None
            }
        }
    }

    /// Takes back the transmit buffers the device has finished with.
    pub fn reclaim(&mut self) {
        while let Some(token) = self.net.poll_transmit() {
            let Some((buf, len)) = self.tx.get_mut(token as usize).and_then(Option::take) else { break };
            // SAFETY: the same buffer (and length) that `transmit_begin` was given.
            let _ = unsafe { self.net.transmit_complete(token, &buf[..len]) };
            self.spare.push(buf);
        }
    }
}

/// The tokens point at the device rather than borrow it: smoltcp sends a
/// reply (a transmit token) from inside a receive token's `consume`, so the
/// two are alive at once, though each touches the device only in turn.
pub struct Rx<'a>(*mut NetDevice, Option<(Vec<u8>, usize, usize)>, PhantomData<&'a mut NetDevice>);
pub struct Tx<'a>(*mut NetDevice, PhantomData<&'a mut NetDevice>);

impl phy::Device for NetDevice {
    type RxToken<'a> = Rx<'a>;
    type TxToken<'a> = Tx<'a>;

    fn receive(&mut self, _now: Instant) -> Option<(Rx<'_>, Tx<'_>)> {
        self.reclaim();
        let (buf, hdr, len) = match self.staged.take() {
            Some(f) => f,
            None => self.take_frame()?,
        };
        let dev: *mut NetDevice = self;
        Some((Rx(dev, Some((buf, hdr, len)), PhantomData), Tx(dev, PhantomData)))
    }

    fn transmit(&mut self, _now: Instant) -> Option<Tx<'_>> {
        self.reclaim();
        if !self.net.can_send() {
            return None;
        }
        Some(Tx(self, PhantomData))
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ethernet;
        caps.max_transmission_unit = 1514;
        caps.max_burst_size = Some(QUEUE / 2);
        caps
    }
}

impl phy::RxToken for Rx<'_> {
    fn consume<R, F: FnOnce(&[u8]) -> R>(mut self, f: F) -> R {
        let (buf, hdr, len) = self.1.take().expect("a receive token holds its buffer");
        let r = f(buf.get(hdr..hdr + len).unwrap_or(&[]));
        // SAFETY: the device outlives the token ('a), and no other
        // reference to it is in use while this line runs (see Rx).
        let dev = unsafe { &mut *self.0 };
        dev.post_rx(buf);
        r
    }
}

impl phy::TxToken for Tx<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        // SAFETY: as in Rx::consume: the device outlives the token and is
        // used by nothing else while this runs.
        let dev = unsafe { &mut *self.0 };
        let mut buf = dev.spare.pop().unwrap_or_else(|| vec![0; FRAME]);
        let hdr = dev.net.fill_buffer_header(&mut buf).unwrap_or(0);
        let end = (hdr + len).min(buf.len());
        let r = f(&mut buf[hdr..end]);
        // SAFETY: the buffer is kept in `tx` under its token until the
        // device reports it used (`reclaim`).
        match unsafe { dev.net.transmit_begin(&buf[..end]) } {
            Ok(token) => match dev.tx.get_mut(token as usize) {
                Some(slot) => {
                    *slot = Some((buf, end));
                    super::stats::FRAMES_OUT.add(1);
                }
                // The device owns it now and the crate never numbers a
                // token past the queue: never freed, never reached.
                None => core::mem::forget(buf),
            },
            // A frame the queue refuses is lost, as on a congested wire;
            // TCP sends it again.
            _ => dev.spare.push(buf),
        }
        r
    }
}
