//! What the device tree says about the machine, read once by the boot CPU
//! into plain values (the `fdt` crate does the parsing).

use alloc::vec::Vec;
use fdt::Fdt;

/// A physical address range [start, end).
#[derive(Clone, Copy, Debug, Default)]
pub struct Range {
    pub start: u64,
    pub end: u64,
}

#[derive(Debug, Default)]
pub struct Machine {
    pub memory: Vec<Range>,
    /// CPU ids of the CPUs whose status is okay, in device-tree order.
    pub hwids: Vec<usize>,
    /// What the tree says about their caches, in the same order (topology.rs).
    pub cpu_caches: Vec<gometal_core::topology::CpuCaches>,
    pub uart: Option<u64>,
    pub uart_irq: Option<u32>,
    pub rtc: Option<u64>,
    pub bootargs: Vec<u8>,
    pub initrd: Option<Range>,
    pub fdt: Range,
    /// The virtio-mmio slots, populated or not (probing tells).
    pub virtio: Vec<VirtioSlot>,
    /// The PCIe host bridge and the platform devices UIO may expose.
    pub pci_host: Option<super::devnodes::PciHostNode>,
    pub platform: Vec<super::devnodes::PlatformNode>,
    /// What the architecture reads for itself.
    pub arch: crate::arch::MachineInfo,
}

/// One `virtio,mmio` node: its register block and interrupt.
#[derive(Clone, Copy, Debug)]
pub struct VirtioSlot {
    pub base: u64,
    pub size: u64,
    pub irq: u32,
}

/// Reads the device tree at physical address `dtb_pa`.
///
/// # Safety
/// `dtb_pa` must be the device tree blob OpenSBI passed in a1, mapped by the
/// linear map and not yet reused.
pub unsafe fn read(dtb_pa: u64) -> Machine {
    let va = crate::memlayout::phys_to_virt(dtb_pa) as *const u8;
    // SAFETY: forwarded from the caller's contract.
    let fdt = match unsafe { Fdt::from_ptr(va) } {
        Ok(f) => f,
        Err(_) => panic!("cannot parse the device tree at {:#x}", dtb_pa),
    };
    let mut m = Machine {
        fdt: Range { start: dtb_pa, end: dtb_pa + fdt.total_size() as u64 },
        ..Machine::default()
    };
    for r in fdt.memory().regions() {
        let start = r.starting_address as u64;
        m.memory.push(Range { start, end: start + r.size.unwrap_or(0) as u64 });
    }
    let okay = |cpu: &fdt::standard_nodes::Cpu| cpu.property("status").and_then(|p| p.as_str()).is_none_or(|s| s == "okay");
    m.hwids = fdt.cpus().filter(|c| okay(c)).map(|c| c.ids().first()).collect();
    m.cpu_caches = super::topology::read(&fdt, okay);
    m.arch = crate::arch::read_machine(&fdt);
    let reg = |compat: &[&str]| {
        fdt.find_compatible(compat)
            .and_then(|n| n.reg())
            .and_then(|mut r| r.next())
            .map(|r| r.starting_address as u64)
    };
    m.uart = reg(&["ns16550a", "ns16550"]);
    m.uart_irq = fdt.find_compatible(&["ns16550a", "ns16550"]).and_then(|n| super::dtirq::first(&fdt, &n));
    m.rtc = reg(&["google,goldfish-rtc"]);
    for node in fdt.all_nodes() {
        let virtio = node.compatible().is_some_and(|c| c.all().any(|s| s == "virtio,mmio"));
        let reg = node.reg().and_then(|mut r| r.next());
        let irq = super::dtirq::first(&fdt, &node);
        if let (true, Some(reg), Some(irq)) = (virtio, reg, irq) {
            let size = reg.size.unwrap_or(0x1000) as u64;
            m.virtio.push(VirtioSlot { base: reg.starting_address as u64, size, irq });
        }
    }
    m.pci_host = super::devnodes::pci_host(&fdt);
    m.platform = super::devnodes::platform(&fdt);
    let chosen = fdt.chosen();
    if let Some(args) = chosen.bootargs() {
        m.bootargs = args.as_bytes().to_vec();
    }
    if let Some(node) = fdt.find_node("/chosen") {
        let cell = |name| node.property(name).and_then(|p| p.as_usize()).map(|v| v as u64);
        if let (Some(start), Some(end)) = (cell("linux,initrd-start"), cell("linux,initrd-end")) {
            m.initrd = Some(Range { start, end });
        }
    }
    m
}
