//! PCI Express behind a `pci-host-ecam-generic` bridge (QEMU virt's): the
//! config space is memory-mapped (ECAM), there is no firmware that assigned
//! BARs, so the kernel places every memory BAR of the functions it hands out
//! in the bridge's 32-bit memory window and routes their INTx pins through
//! the bridge's `interrupt-map` (kernel/core/src/pcihost.rs decides both).
//! Register layouts come from the `pci_types` crate.

use crate::drivers::mmio::Mmio;
use gometal_core::pcihost::BarAllocator;
use pci_types::{Bar, ConfigRegionAccess, EndpointHeader, HeaderType, PciAddress, PciHeader};

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

/// A function found on bus 0.
#[derive(Clone, Copy, Debug)]
pub struct Function {
    pub addr: PciAddress,
    pub vendor: u16,
    pub device: u16,
    /// INTx pin, 1..=4 (0: none).
    pub pin: u8,
}

/// The endpoint functions on bus 0 (QEMU virt puts every `-device` there).
pub fn scan(ecam: &Ecam) -> alloc::vec::Vec<Function> {
    let mut out = alloc::vec::Vec::new();
    for dev in 0..32u8 {
        for func in 0..8u8 {
            let addr = PciAddress::new(0, 0, dev, func);
            let header = PciHeader::new(addr);
            let multi = header.has_multiple_functions(ecam);
            let (vendor, device) = header.id(ecam);
            if vendor == 0xffff {
                if func == 0 {
                    break;
                }
                continue;
            }
            if header.header_type(ecam) == HeaderType::Endpoint {
                let Some(ep) = EndpointHeader::from_header(header, ecam) else { continue };
                out.push(Function { addr, vendor, device, pin: ep.interrupt(ecam).0 });
            }
            if func == 0 && !multi {
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
pub struct Windows {
    pub mem: BarAllocator,
    pub io: Option<BarAllocator>,
}

/// Places `f`'s BARs in the windows and turns on memory and I/O decoding
/// and bus mastering (DMA), with INTx enabled. I/O BARs come back as
/// memory too (their CPU address in the I/O window): a gometal extension,
/// since Linux's uio_pci_generic exposes memory BARs only.
pub fn assign_bars(ecam: &Ecam, f: &Function, windows: &mut Windows) -> alloc::vec::Vec<MemBar> {
    let Some(mut ep) = EndpointHeader::from_header(PciHeader::new(f.addr), ecam) else { return alloc::vec::Vec::new() };
    // Decoding off while the BARs move.
    ecam.set_command(f.addr, ecam.command(f.addr) & !(CMD_MEMORY | CMD_IO));
    let mut bars = alloc::vec::Vec::new();
    let mut slot = 0u8;
    while slot < 6 {
        let bar = ep.bar(slot, ecam);
        let wide = matches!(bar, Some(Bar::Memory64 { .. }));
        let size = match bar {
            Some(Bar::Memory32 { size, .. }) => size as u64,
            Some(Bar::Memory64 { size, .. }) => size,
            Some(Bar::Io { .. }) => {
                if let Some(b) = windows.io.as_mut().and_then(|io| assign_io_bar(ecam, f, slot, io)) {
                    bars.push(b);
                }
                0
            }
            None => 0,
        };
        if size > 0 {
            if let Some(pa) = windows.mem.alloc(size) {
                // SAFETY: a memory BAR of this function, given an address in
                // the bridge's window that nothing else uses.
                if unsafe { ep.write_bar(slot, ecam, windows.mem.to_pci(pa) as usize) }.is_ok() {
                    bars.push(MemBar { slot, pa, size: size.max(4096) });
                }
            }
        }
        slot += if wide { 2 } else { 1 };
    }
    let cmd = (ecam.command(f.addr) | CMD_MEMORY | CMD_IO | CMD_BUS_MASTER) & !CMD_INTX_DISABLE;
    ecam.set_command(f.addr, cmd);
    bars
}

/// Sizes I/O BAR `slot` (pci_types reports no size for I/O BARs) and
/// gives it ports in the I/O window.
fn assign_io_bar(ecam: &Ecam, f: &Function, slot: u8, io: &mut BarAllocator) -> Option<MemBar> {
    let off = 0x10 + 4 * slot as u16;
    ecam.write32(f.addr, off, u32::MAX);
    let mask = ecam.read32(f.addr, off) & !3 & 0xffff;
    if mask == 0 {
        return None;
    }
    let size = (!mask & 0xffff) as u64 + 1;
    let pa = io.alloc(size)?;
    ecam.write32(f.addr, off, io.to_pci(pa) as u32);
    Some(MemBar { slot, pa, size: size.max(4096) })
}
