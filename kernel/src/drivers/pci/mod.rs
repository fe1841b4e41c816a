//! PCI Express behind a `pci-host-ecam-generic` bridge (QEMU virt's): the
//! config space is memory-mapped (ECAM), there is no firmware that assigned
//! BARs, so the kernel places every memory BAR of the functions it hands out
//! in the bridge's 32-bit memory window and routes their INTx pins through
//! the bridge's `interrupt-map` (kernel/core/src/drivers/pcihost.rs decides both).
//! Config words are decoded by kernel/core/src/drivers/pciconfig.rs (a device may
//! hold any value: a bad BAR or header is logged and skipped); `pci_types`
//! gives the address type only.
//!
//! The kernel drives some functions itself (virtio-pci: drivers/virtio/
//! pci.rs) before UIO hands functions to programs; `claim` records what it
//! took and where its BARs ended, so UIO places its BARs after them.

use crate::arch::mmio::Mmio;
use gometal_core::drivers::pcihost::{BarAllocator, Space, Window};
use gometal_core::drivers::pciconfig::{self, BarError, BarKind, Layout};
use pci_types::{ConfigRegionAccess, PciAddress};
use spin::Once;
use virtio_drivers::transport::pci::bus::{ConfigurationAccess, DeviceFunction};

/// Command register bits (offset 4).
pub const CMD_IO: u16 = 1 << 0;
pub const CMD_MEMORY: u16 = 1 << 1;
pub const CMD_BUS_MASTER: u16 = 1 << 2;
pub const CMD_INTX_DISABLE: u16 = 1 << 10;
/// Status register bit 3 (offset 6): the function asserts INTx.
pub const STATUS_INTERRUPT: u16 = 1 << 3;
/// Bytes of config space per function that ECAM maps.
pub const CONFIG_SIZE: usize = 4096;

/// Config space through the ECAM window.
#[derive(Clone, Copy)]
pub struct Ecam {
    base: u64,
    size: u64,
}

impl Ecam {
    /// # Safety
    /// [base, base+size) must be the ECAM window of the device tree's host
    /// bridge, reachable through the linear map.
    pub unsafe fn new(base: u64, size: u64) -> Self {
        Ecam { base, size }
    }

    /// The physical address of `addr`'s config space, if the window covers it.
    pub fn function_base(&self, addr: PciAddress) -> Option<u64> {
        let off = (addr.bus() as u64) << 20 | (addr.device() as u64) << 15 | (addr.function() as u64) << 12;
        (off + CONFIG_SIZE as u64 <= self.size).then_some(self.base + off)
    }

    fn regs(&self, addr: PciAddress) -> Option<Mmio> {
        // SAFETY: inside the ECAM window (function_base checked it).
        self.function_base(addr).map(|pa| unsafe { Mmio::new(pa) })
    }

    pub fn read32(&self, addr: PciAddress, offset: u16) -> u32 {
        self.regs(addr).map_or(u32::MAX, |r| r.read32(offset as usize & 0xffc))
    }

    pub fn write32(&self, addr: PciAddress, offset: u16, value: u32) {
        if let Some(r) = self.regs(addr) {
            r.write32(offset as usize & 0xffc, value);
        }
    }

    pub fn read8(&self, addr: PciAddress, offset: u16) -> u8 {
        self.regs(addr).map_or(u8::MAX, |r| r.read8(offset as usize & 0xfff))
    }

    pub fn write8(&self, addr: PciAddress, offset: u16, value: u8) {
        if let Some(r) = self.regs(addr) {
            r.write8(offset as usize & 0xfff, value);
        }
    }

    pub fn write16(&self, addr: PciAddress, offset: u16, value: u16) {
        if let Some(r) = self.regs(addr) {
            r.write16(offset as usize & 0xffe, value);
        }
    }

    pub fn command(&self, addr: PciAddress) -> u16 {
        self.read32(addr, 4) as u16
    }

    /// Writes the command register alone (the status half of the dword is
    /// write-one-to-clear: writing back what was read would clear it).
    pub fn set_command(&self, addr: PciAddress, cmd: u16) {
        self.write32(addr, 4, cmd as u32);
    }

    pub fn status(&self, addr: PciAddress) -> u16 {
        (self.read32(addr, 4) >> 16) as u16
    }
}

impl ConfigRegionAccess for Ecam {
    unsafe fn read(&self, address: PciAddress, offset: u16) -> u32 {
        self.read32(address, offset)
    }
    unsafe fn write(&self, address: PciAddress, offset: u16, value: u32) {
        self.write32(address, offset, value)
    }
}

/// The `virtio-drivers` crate's PCI transport reads the capabilities and
/// BARs of a function through this.
impl ConfigurationAccess for Ecam {
    fn read_word(&self, f: DeviceFunction, offset: u8) -> u32 {
        self.read32(PciAddress::new(0, f.bus, f.device, f.function), offset as u16)
    }
    fn write_word(&mut self, f: DeviceFunction, offset: u8, data: u32) {
        self.write32(PciAddress::new(0, f.bus, f.device, f.function), offset as u16, data)
    }
    unsafe fn unsafe_clone(&self) -> Self {
        *self
    }
}

/// A function found on bus 0.
#[derive(Clone, Copy, Debug)]
pub struct Function {
    pub addr: PciAddress,
    pub vendor: u16,
    pub device: u16,
    /// INTx pin, 1..=4 (0: none or an invalid value).
    pub pin: u8,
}

/// The endpoint functions on bus 0 (QEMU virt puts every `-device` there).
/// Bridges and unknown header layouts are logged and skipped: UIO hands
/// out endpoints only, and the kernel does not walk buses behind bridges.
pub fn scan(ecam: &Ecam) -> alloc::vec::Vec<Function> {
    let mut out = alloc::vec::Vec::new();
    for dev in 0..32u8 {
        let mut multi = false;
        for func in 0..8u8 {
            let addr = PciAddress::new(0, 0, dev, func);
            let id = ecam.read32(addr, 0);
            let (vendor, device) = (id as u16, (id >> 16) as u16);
            if vendor == 0xffff {
                if func == 0 {
                    break;
                }
                continue;
            }
            let (layout, several) = pciconfig::header(ecam.read32(addr, 0x0c));
            if func == 0 {
                multi = several;
            }
            match layout {
                Layout::Endpoint => {
                    let pin = pciconfig::intx_pin(ecam.read32(addr, 0x3c)).unwrap_or(0);
                    out.push(Function { addr, vendor, device, pin });
                }
                other => crate::println!("gometal: pci 00:{:02x}.{} {:04x}:{:04x}: {:?} header, skipped", dev, func, vendor, device, other),
            }
            if !multi {
                break;
            }
        }
    }
    out
}

/// A memory BAR after assignment: its slot, CPU physical address and size.
#[derive(Clone, Copy, Debug)]
pub struct MemBar {
    pub slot: u8,
    pub pa: u64,
    pub size: u64,
}

/// The bridge windows BARs are placed in: 32-bit memory, and I/O ports
/// (which RISC-V reaches as memory: the `ranges` entry's CPU address).
#[derive(Clone, Copy)]
pub struct Windows {
    pub mem: BarAllocator,
    pub io: Option<BarAllocator>,
}

/// Places `f`'s BARs in the windows and turns on memory and I/O decoding
/// and bus mastering (DMA), with INTx enabled. I/O BARs come back as
/// memory too (their CPU address in the I/O window): a gometal extension,
/// since Linux's uio_pci_generic exposes memory BARs only. A BAR that
/// decodes badly or does not fit its window is logged and left unmapped.
pub fn assign_bars(ecam: &Ecam, f: &Function, windows: &mut Windows) -> alloc::vec::Vec<MemBar> {
    // Decoding off while the BARs move.
    ecam.set_command(f.addr, ecam.command(f.addr) & !(CMD_MEMORY | CMD_IO));
    let mut bars = alloc::vec::Vec::new();
    let mut slot = 0u8;
    while slot < 6 {
        let off = bar_offset(slot);
        let kind = pciconfig::bar_kind(ecam.read32(f.addr, off), slot);
        match kind.and_then(|k| size_bar(ecam, f.addr, slot, k).map(|s| (k, s))) {
            Ok((_, None)) => {}
            Ok((k, Some(size))) => match place_bar(ecam, f.addr, slot, k, size, windows) {
                Some(b) => bars.push(b),
                None => bar_skipped(f, slot, "does not fit its bridge window"),
            },
            Err(e) => bar_skipped(f, slot, bar_error(e)),
        }
        slot += if kind == Ok(BarKind::Mem64) { 2 } else { 1 };
    }
    let cmd = (ecam.command(f.addr) | CMD_MEMORY | CMD_IO | CMD_BUS_MASTER) & !CMD_INTX_DISABLE;
    ecam.set_command(f.addr, cmd);
    bars
}

/// The windows of a bridge's `ranges` BARs go in: its 32-bit memory window
/// (which the linear map reaches on every machine gometal knows; the 64-bit
/// one may not be) and its I/O window, less the first 4 KiB of ports
/// (legacy ISA ports on a PC; and a BAR at port 0 would read as unassigned).
pub fn windows(ranges: &[Window]) -> Option<Windows> {
    let mem = ranges.iter().find(|w| w.space == Space::Mem32)?;
    let mut io = ranges.iter().find(|w| w.space == Space::Io).map(|w| BarAllocator::new(*w));
    if let Some(io) = io.as_mut() {
        io.alloc(4096);
    }
    Some(Windows { mem: BarAllocator::new(*mem), io })
}

/// The first memory BAR of `f` that the firmware placed at or above
/// `limit` (where the kernel cannot reach it), if any.
pub fn bar_above(ecam: &Ecam, f: &Function, limit: u64) -> Option<u64> {
    let mut slot = 0u8;
    while slot < 6 {
        let lo = ecam.read32(f.addr, bar_offset(slot));
        let kind = pciconfig::bar_kind(lo, slot);
        let addr = match kind {
            Ok(BarKind::Mem32) => (lo & !0xf) as u64,
            Ok(BarKind::Mem64) => (ecam.read32(f.addr, bar_offset(slot) + 4) as u64) << 32 | (lo & !0xf) as u64,
            _ => 0,
        };
        if addr >= limit {
            return Some(addr);
        }
        slot += if kind == Ok(BarKind::Mem64) { 2 } else { 1 };
    }
    None
}

/// Turns on memory decoding and bus mastering, INTx enabled, for a
/// function whose BARs the firmware already placed (UEFI under ACPI).
pub fn enable(ecam: &Ecam, f: &Function) {
    let cmd = (ecam.command(f.addr) | CMD_MEMORY | CMD_BUS_MASTER) & !CMD_INTX_DISABLE;
    ecam.set_command(f.addr, cmd);
}

/// What the kernel's own drivers took from the bus before UIO looks.
pub struct Claimed {
    /// The bridge windows after the kernel's BARs (None: the firmware
    /// placed every BAR).
    pub windows: Option<Windows>,
    pub functions: alloc::vec::Vec<PciAddress>,
}

static CLAIMED: Once<Claimed> = Once::new();

/// Records what the kernel took (once, at boot).
pub fn claim(c: Claimed) {
    CLAIMED.call_once(|| c);
}

/// What the kernel took, if it took anything.
pub fn claimed() -> Option<&'static Claimed> {
    CLAIMED.get()
}

fn bar_offset(slot: u8) -> u16 {
    0x10 + 4 * slot as u16
}

/// Writes all ones to the BAR (both halves of a 64-bit one) and decodes
/// what sticks; the BAR is then unassigned until `place_bar`.
fn size_bar(ecam: &Ecam, addr: PciAddress, slot: u8, kind: BarKind) -> Result<Option<u64>, BarError> {
    let off = bar_offset(slot);
    ecam.write32(addr, off, u32::MAX);
    let lo = ecam.read32(addr, off);
    let hi = if kind == BarKind::Mem64 {
        ecam.write32(addr, off + 4, u32::MAX);
        ecam.read32(addr, off + 4)
    } else {
        0
    };
    ecam.write32(addr, off, 0);
    if kind == BarKind::Mem64 {
        ecam.write32(addr, off + 4, 0);
    }
    pciconfig::bar_size(kind, lo, hi)
}

/// Gives the BAR an address in its window and writes it.
fn place_bar(ecam: &Ecam, addr: PciAddress, slot: u8, kind: BarKind, size: u64, windows: &mut Windows) -> Option<MemBar> {
    let window = match kind {
        BarKind::Io => windows.io.as_mut()?,
        _ => &mut windows.mem,
    };
    let pa = window.alloc(size)?;
    let bus = window.to_pci(pa);
    if kind == BarKind::Mem32 && bus > u32::MAX as u64 {
        return None;
    }
    let off = bar_offset(slot);
    ecam.write32(addr, off, bus as u32);
    if kind == BarKind::Mem64 {
        ecam.write32(addr, off + 4, (bus >> 32) as u32);
    }
    Some(MemBar { slot, pa, size: size.max(4096) })
}

fn bar_error(e: BarError) -> &'static str {
    match e {
        BarError::ReservedType => "has the reserved memory type",
        BarError::Mem64InLastSlot => "is 64-bit in the last slot",
        BarError::BadSizeMask => "reads back a size mask that is not a power of two",
    }
}

fn bar_skipped(f: &Function, slot: u8, why: &str) {
    crate::println!(
        "gometal: pci 00:{:02x}.{} {:04x}:{:04x}: BAR{} {}; not mapped",
        f.addr.device(),
        f.addr.function(),
        f.vendor,
        f.device,
        slot,
        why
    );
}
