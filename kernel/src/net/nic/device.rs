//! The virtio-net device as smoltcp sees it: one received frame per
//! `receive` (its buffer goes back to the device once smoltcp has read it)
//! and one transmit buffer per frame sent. The `virtio-drivers` crate's
//! `VirtIONet` does the queues; this file only adapts it to smoltcp's
//! `Device` trait.

use crate::drivers::virtio::hal::KernelHal;
use crate::drivers::virtio::Mmio;
use core::marker::PhantomData;
use smoltcp::phy::{self, DeviceCapabilities, Medium};
use smoltcp::time::Instant;
use virtio_drivers::device::net::{RxBuffer, VirtIONet};

/// Receive and transmit queue depth (QEMU offers 256; 64 frames in flight
/// each way are plenty for one guest and keep boot memory small).
pub const QUEUE: usize = 64;
/// A receive buffer: one Ethernet frame plus the virtio-net header (the
/// crate wants 1526 bytes at least, and rounds down to whole words).
pub const FRAME: usize = 2048;

pub type Net = VirtIONet<KernelHal, Mmio, QUEUE>;

pub struct NetDevice(pub Net);

/// The tokens point at the device rather than borrow it: smoltcp sends a
/// reply (a transmit token) from inside a receive token's `consume`, so the
/// two are alive at once, though each touches the device only in turn.
pub struct Rx<'a>(*mut Net, Option<RxBuffer>, PhantomData<&'a mut Net>);
pub struct Tx<'a>(*mut Net, PhantomData<&'a mut Net>);

impl phy::Device for NetDevice {
    type RxToken<'a> = Rx<'a>;
    type TxToken<'a> = Tx<'a>;

    fn receive(&mut self, _now: Instant) -> Option<(Rx<'_>, Tx<'_>)> {
        if !self.0.can_recv() {
            return None;
        }
        let buf = self.0.receive().ok()?;
        let net: *mut Net = &mut self.0;
        Some((Rx(net, Some(buf), PhantomData), Tx(net, PhantomData)))
    }

    fn transmit(&mut self, _now: Instant) -> Option<Tx<'_>> {
        if !self.0.can_send() {
            return None;
        }
        Some(Tx(&mut self.0, PhantomData))
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
        let buf = self.1.take().expect("a receive token holds its buffer");
        let r = f(buf.packet());
        // SAFETY: the device outlives the token ('a), and no other
        // reference to it is in use while this line runs (see Rx).
        let net = unsafe { &mut *self.0 };
        // A buffer the device will not take back only shrinks the ring.
        let _ = net.recycle_rx_buffer(buf);
        r
    }
}

impl phy::TxToken for Tx<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        // SAFETY: as in Rx::consume: the device outlives the token and is
        // used by nothing else while this runs.
        let net = unsafe { &mut *self.0 };
        let mut buf = net.new_tx_buffer(len);
        let r = f(buf.packet_mut());
        // A frame the queue refuses is lost, as on a congested wire; TCP
        // sends it again.
        let _ = net.send(buf);
        r
    }
}
