//! virtio devices on either transport: QEMU virt's `virtio,mmio` slots and
//! virtio-pci functions on the PCIe bus (pci.rs). Finds the devices the CLI
//! added and starts their drivers. The transports (`SomeTransport`: MMIO or
//! PCI) and the split virtqueues come from the maintained `virtio-drivers`
//! crate, so every driver here works over both; the entropy device uses its
//! `VirtIORng`; the console is our own multiport driver (console/) because
//! the crate's console handles a single port and no control queue, and end
//! of input needs the control queue.

pub mod console;
pub mod hal;
pub mod net;
pub mod netpair;
pub mod p9;
pub mod pci;
pub mod rng;

use crate::boot::machine::VirtioSlot;
use core::ptr::NonNull;
use virtio_drivers::transport::mmio::{MmioTransport, VirtIOHeader};
use virtio_drivers::transport::{DeviceType, SomeTransport, Transport};

/// A virtio device's transport: an MMIO slot or a PCI function.
pub type VirtioTransport = SomeTransport<'static>;

/// What probing found for the layers above the drivers: how many entropy
/// bytes the rng device gave, and the network device (with its interrupt
/// line) for net/ to take — drivers do not call up into net/.
pub struct Found {
    pub entropy: usize,
    pub nic: Option<(VirtioTransport, u32)>,
}

/// A device found on either transport, with its interrupt line (None: a
/// PCI function whose INTx could not be routed).
pub struct Device {
    pub transport: VirtioTransport,
    pub irq: Option<u32>,
}

/// The devices in the virtio-mmio slots (an empty slot reads device id 0).
pub fn mmio_devices(slots: &[VirtioSlot]) -> alloc::vec::Vec<Device> {
    let mut out = alloc::vec::Vec::new();
    for slot in slots {
        let va = crate::memlayout::phys_to_virt(slot.base) as *mut VirtIOHeader;
        let Some(header) = NonNull::new(va) else { continue };
        // SAFETY: the device tree names this range a virtio-mmio register
        // block; the linear map covers it, and each slot is probed once.
        if let Ok(t) = unsafe { MmioTransport::new(header, slot.size as usize) } {
            out.push(Device { transport: t.into(), irq: Some(slot.irq) });
        }
    }
    out
}

/// Starts a driver for every device we know (the console, 9P), reads the
/// entropy device, and hands back what the layers above use (entropy
/// bytes, the NIC). A device that needs its interrupt and has none is
/// reported and left alone; the entropy device is polled and needs none.
pub fn probe(devices: alloc::vec::Vec<Device>, entropy: &mut [u8]) -> Found {
    let mut got = 0;
    let mut nic = None;
    for Device { transport, irq } in devices {
        let kind = transport.device_type();
        match (kind, irq) {
            (DeviceType::EntropySource, _) if got == 0 => got = rng::take_entropy(transport, entropy),
            (DeviceType::Console | DeviceType::_9P | DeviceType::Network, None) => {
                crate::println!("gometal: virtio {kind:?} device on PCI with no interrupt routed: not used");
            }
            (DeviceType::Console, Some(irq)) => console::init(transport, irq),
            (DeviceType::_9P, Some(irq)) => p9::add(transport, irq),
            (DeviceType::Network, Some(irq)) if nic.is_none() => nic = Some((transport, irq)),
            _ => {}
        }
    }
    Found { entropy: got, nic }
}
