//! virtio over PCI Express (QEMU's `virtio-*-pci` devices: `gometal run
//! -virtio pci`, and what UEFI firmware with ACPI tables offers): finds the
//! virtio functions on bus 0 and makes each a `PciTransport` of the
//! `virtio-drivers` crate (its common, notify, ISR and device config
//! structures, found through the vendor capabilities, in the function's
//! memory BARs). The drivers above see the same `Transport` as on MMIO.
//!
//! BARs: under a device tree nothing placed them, so the kernel does
//! (drivers/pci's `assign_bars`, in the bridge's 32-bit window, which the
//! linear map covers); under UEFI the firmware did, and they stay. EDK2
//! puts 64-bit BARs in the bridge's 64-bit window (512 GiB on QEMU's arm64
//! virt), above the linear map: the architecture maps that GiB as device
//! memory (`arch::map_high_device`; one GiB, enough for a VM's devices).
//!
//! Interrupts: legacy INTx, which virtio-pci raises whenever MSI-X is not
//! enabled (it is never enabled here), acknowledged by reading the ISR
//! status register (the transport's `ack_interrupt`). The caller says
//! which line each device's pin reaches: the device tree's
//! `interrupt-map`, or under ACPI the DSDT's `_PRT` (core's acpiprt.rs).
//! Several functions share one of the four lines, so handlers are
//! registered shared (drivers/irq.rs). MSI-X (a GIC ITS or GICv2m on
//! arm64; riscv64 virt's PLIC takes no MSIs) is not used.

use super::hal::KernelHal;
use super::Device;
use crate::drivers::pci::{self, Ecam, Function, Windows};
use alloc::vec::Vec;
use virtio_drivers::transport::pci::bus::{DeviceFunction, PciRoot};
use virtio_drivers::transport::pci::PciTransport;
use virtio_drivers::transport::DeviceType;

/// PCI's vendor id for virtio (Red Hat, Inc.).
const VIRTIO_VENDOR: u16 = 0x1af4;

/// A PCIe bus to look for virtio functions on.
pub struct Bus<'a> {
    pub ecam: Ecam,
    /// The windows to place BARs in; None: the firmware placed them.
    pub windows: Option<Windows>,
    /// The interrupt line of INTx `pin` (1..=4) of device `dev` on bus 0.
    pub route: &'a dyn Fn(u8, u8) -> Option<u32>,
    /// Functions (vendor, device) a `uio=` option gives to the program.
    pub reserved: &'a dyn Fn(u16, u16) -> bool,
    /// Say what was found (the `verbose` kernel option).
    pub verbose: bool,
}

/// The kinds the kernel drives; other virtio functions (a disk for UIO)
/// are left alone.
fn driven(t: DeviceType) -> bool {
    matches!(t, DeviceType::Console | DeviceType::EntropySource | DeviceType::Network | DeviceType::_9P)
}

/// The virtio functions on `bus` this kernel drives, ready for their
/// drivers; records them (and where BARs may go next) for UIO.
pub fn devices(mut bus: Bus) -> Vec<Device> {
    let mut out = Vec::new();
    let mut taken = Vec::new();
    for f in pci::scan(&bus.ecam) {
        if f.vendor != VIRTIO_VENDOR || (bus.reserved)(f.vendor, f.device) {
            continue;
        }
        let Some(kind) = device_type(f.device).filter(|t| driven(*t)) else { continue };
        if bus.windows.is_none() {
            if let Some(pa) = pci::bar_above(&bus.ecam, &f, crate::memlayout::LINEAR_MAP_END).filter(|pa| !crate::arch::map_high_device(*pa)) {
                crate::println!(
                    "gometal: virtio-pci 00:{:02x}.{}: the firmware placed a BAR at {pa:#x}, beyond the kernel's linear map and its high device window: not used",
                    f.addr.device(),
                    f.addr.function()
                );
                continue;
            }
        }
        match &mut bus.windows {
            Some(w) => {
                pci::assign_bars(&bus.ecam, &f, w);
            }
            None => pci::enable(&bus.ecam, &f),
        }
        let df = DeviceFunction { bus: f.addr.bus(), device: f.addr.device(), function: f.addr.function() };
        let mut root = PciRoot::new(bus.ecam);
        match PciTransport::new::<KernelHal, _>(&mut root, df) {
            Ok(t) => {
                taken.push(f.addr);
                let irq = (bus.route)(f.addr.device(), f.pin);
                if bus.verbose {
                    crate::println!(
                        "gometal: virtio-pci 00:{:02x}.{} {:04x}:{:04x}: {:?}, INTx pin {} on line {irq:?}",
                        f.addr.device(),
                        f.addr.function(),
                        f.vendor,
                        f.device,
                        kind,
                        f.pin
                    );
                }
                out.push(Device { transport: t.into(), irq });
            }
            Err(e) => report(&f, e),
        }
    }
    pci::claim(pci::Claimed { windows: bus.windows, functions: taken });
    out
}

/// The device type of a virtio PCI device id: 0x1040 + type for modern
/// devices, 0x1000.. for the transitional ones QEMU offers by default.
fn device_type(id: u16) -> Option<DeviceType> {
    let info = virtio_drivers::transport::pci::bus::DeviceFunctionInfo {
        vendor_id: VIRTIO_VENDOR,
        device_id: id,
        class: 0,
        subclass: 0,
        prog_if: 0,
        revision: 0,
        header_type: virtio_drivers::transport::pci::bus::HeaderType::Standard,
    };
    virtio_drivers::transport::pci::virtio_device_type(&info)
}

fn report(f: &Function, e: virtio_drivers::transport::pci::VirtioPciError) {
    crate::println!(
        "gometal: virtio-pci 00:{:02x}.{} {:04x}:{:04x}: not used ({e:?})",
        f.addr.device(),
        f.addr.function(),
        f.vendor,
        f.device
    );
}
