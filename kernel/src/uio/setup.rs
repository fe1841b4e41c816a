//! Finding the devices the program asked for (`uio=` specs) at boot:
//! PCI functions on the ECAM bridge, platform nodes by `compatible`. Each
//! gets its BARs or register block as maps, a physically contiguous DMA
//! region as its last map, its interrupt routed to one CPU, and its
//! /dev and /sys entries.

use super::{affinity, sysfs, Map, Source, UioDevice, DEVICES};
use crate::boot::devnodes::{PciHostNode, PlatformNode};
use crate::boot::machine::Machine;
use crate::drivers::pci;
use crate::sched::cpu;
use crate::sched::wait::WaitQueue;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use gometal_core::drivers::pcihost::route_intx;
use gometal_core::uio::uiospec::{self, Match, Spec};

/// Pages of each device's DMA region (physically contiguous).
const DMA_PAGES: usize = 256;

/// A device found for a spec, before it has an index.
struct Found {
    name: String,
    source: Source,
    maps: Vec<Map>,
    irq: Option<u32>,
}

/// Sets up every device named by `uio=` arguments; logs what it cannot find.
pub fn init(m: &Machine, raw_specs: &[Vec<u8>]) {
    let (specs, bad) = uiospec::parse_all(raw_specs);
    for b in bad {
        crate::println!("gometal: ignoring uio={} (want pci:VVVV:DDDD[@CPU] or dt:COMPATIBLE[@CPU])", String::from_utf8_lossy(&b));
    }
    let mut pci_bus = m.pci_host.as_ref().and_then(PciBus::new);
    let mut devices = Vec::new();
    for spec in &specs {
        let found = match &spec.what {
            Match::Pci { vendor, device } => pci_bus.as_mut().and_then(|b| b.take(*vendor, *device)),
            Match::Compatible(c) => platform(&m.platform, c),
        };
        let Some(mut f) = found else {
            crate::println!("gometal: uio: no device for {:?} on this machine", spec.what);
            continue;
        };
        let Some(dma) = crate::mm::frames::alloc_contiguous(DMA_PAGES) else {
            crate::println!("gometal: uio: no memory for a DMA region; device {:?} not exposed", spec.what);
            continue;
        };
        f.maps.push(Map { name: String::from("dma"), pa: dma, size: (DMA_PAGES * crate::memlayout::PAGE_SIZE) as u64 });
        devices.push(finish(f, spec, devices.len()));
    }
    let mut lines: Vec<u32> = Vec::new();
    for d in &devices {
        sysfs::publish(d);
        if let Some(irq) = d.irq {
            // Devices sharing a line (PCI INTx) share the handler too,
            // with the kernel's own virtio-pci devices if they are on it.
            if !lines.contains(&irq) {
                lines.push(irq);
                crate::drivers::irq::register_shared(irq, |line| {
                    super::on_irq(line);
                });
            }
            crate::drivers::irqchip::route_irq(irq, d.hwid.load(Ordering::Acquire));
        }
    }
    affinity::publish(&devices);
    DEVICES.call_once(|| devices);
}

fn finish(f: Found, spec: &Spec, index: usize) -> Arc<UioDevice> {
    let online = cpu::online_count();
    let at = uiospec::cpu_for(spec.cpu, index, online);
    let hwid = cpu::cpu(at).hwid();
    Arc::new(UioDevice {
        index,
        name: f.name,
        source: f.source,
        maps: f.maps,
        irq: f.irq,
        hwid: AtomicUsize::new(hwid),
        affinity: AtomicU64::new(1u64.checked_shl(at as u32).unwrap_or(1)),
        events: AtomicU32::new(0),
        per_cpu: [const { AtomicU32::new(0) }; crate::param::MAX_CPUS],
        waiters: WaitQueue::new(),
    })
}

fn platform(nodes: &[PlatformNode], compatible: &str) -> Option<Found> {
    let n = nodes.iter().find(|n| n.compatible.iter().any(|c| c == compatible))?;
    let page = crate::memlayout::PAGE_SIZE as u64;
    Some(Found {
        name: n.name.split('@').next().unwrap_or(&n.name).into(),
        source: Source::Platform,
        maps: alloc::vec![Map { name: n.name.clone(), pa: n.base, size: n.size.div_ceil(page) * page }],
        irq: n.irq,
    })
}

/// The PCI bus: its functions not yet handed out, and the memory window.
struct PciBus<'a> {
    host: &'a PciHostNode,
    ecam: pci::Ecam,
    free: Vec<pci::Function>,
    windows: pci::Windows,
}

impl<'a> PciBus<'a> {
    fn new(host: &'a PciHostNode) -> Option<Self> {
        let mut windows = pci::windows(&host.windows)?;
        // SAFETY: the ECAM window from the device tree's host bridge node.
        let ecam = unsafe { pci::Ecam::new(host.ecam, host.ecam_size) };
        let mut free = pci::scan(&ecam);
        // The kernel's own virtio-pci devices are not handed out, and
        // their BARs stay where the kernel put them.
        if let Some(c) = pci::claimed() {
            free.retain(|f| !c.functions.contains(&f.addr));
            windows = c.windows.unwrap_or(windows);
        }
        Some(PciBus { host, ecam, free, windows })
    }

    /// The first function with these ids, its BARs placed and its INTx routed.
    fn take(&mut self, vendor: u16, device: u16) -> Option<Found> {
        let at = self.free.iter().position(|f| f.vendor == vendor && f.device == device)?;
        let f = self.free.remove(at);
        let bars = pci::assign_bars(&self.ecam, &f, &mut self.windows);
        let h = self.host;
        let irq = route_intx(&h.interrupt_map, &h.interrupt_map_mask, 0, f.addr.device(), f.pin, h.parent_addr_cells, h.parent_int_cells)
            .and_then(crate::drivers::irqchip::decode);
        let maps = bars.iter().map(|b| Map { name: format!("BAR{}", b.slot), pa: b.pa, size: b.size }).collect();
        // Linux names every device bound to uio_pci_generic after the driver.
        Some(Found { name: String::from("uio_pci_generic"), source: Source::Pci { ecam: self.ecam, addr: f.addr }, maps, irq })
    }
}
