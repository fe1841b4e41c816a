//! virtio over MMIO (QEMU virt's eight `virtio,mmio` slots): finds the
//! devices the CLI added and starts their drivers. The transport and the
//! split virtqueues come from the maintained `virtio-drivers` crate; the
//! entropy device uses its `VirtIORng`; the console is our own multiport
//! driver (console.rs) because the crate's console handles a single port
//! and no control queue, and end of input needs the control queue.

pub mod console;
pub mod hal;
pub mod net;
pub mod p9;
pub mod rng;

use crate::boot::machine::VirtioSlot;
use core::ptr::NonNull;
use virtio_drivers::transport::mmio::{MmioTransport, VirtIOHeader};
use virtio_drivers::transport::{DeviceType, Transport};

pub type Mmio = MmioTransport<'static>;

/// What probing found for the layers above the drivers: how many entropy
/// bytes the rng device gave, and the network device (with its interrupt
/// line) for net/ to take — drivers do not call up into net/.
pub struct Found {
    pub entropy: usize,
    pub nic: Option<(Mmio, u32)>,
}

/// Starts a driver for every populated slot we know (the console, 9P) and
/// hands back what the layers above use (entropy bytes, the NIC).
pub fn probe(slots: &[VirtioSlot], entropy: &mut [u8]) -> Found {
    let mut got = 0;
    let mut nic = None;
    for slot in slots {
        let va = crate::memlayout::phys_to_virt(slot.base) as *mut VirtIOHeader;
        let Some(header) = NonNull::new(va) else { continue };
        // SAFETY: the device tree names this range a virtio-mmio register
        // block; the linear map covers it, and each slot is probed once.
        let Ok(transport) = (unsafe { MmioTransport::new(header, slot.size as usize) }) else {
            continue; // an empty slot reads device id 0
        };
        match transport.device_type() {
            DeviceType::EntropySource if got == 0 => got = rng::take_entropy(transport, entropy),
            DeviceType::Console => console::init(transport, slot.irq),
            DeviceType::_9P => p9::add(transport, slot.irq),
            DeviceType::Network if nic.is_none() => nic = Some((transport, slot.irq)),
            _ => {}
        }
    }
    Found { entropy: got, nic }
}
