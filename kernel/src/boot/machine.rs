//! What the device tree says about the machine, read once by the boot CPU
//! into plain values (the `fdt` crate does the parsing).

use super::serial::SerialNode;
use alloc::string::String;
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
    /// CPU ids of the CPUs whose status is okay and that can run the
    /// kernel, in device-tree order.
    pub hwids: Vec<usize>,
    /// What the tree says about their caches, in the same order (topology.rs).
    pub cpu_caches: Vec<gometal_core::boot::topology::CpuCaches>,
    /// CPUs that are there but cannot run it (no MMU...), and why.
    pub unusable: Vec<(usize, &'static str)>,
    /// The console /chosen/stdout-path names, and every serial port.
    pub stdout: Option<SerialNode>,
    pub serials: Vec<SerialNode>,
    pub bootargs: Vec<u8>,
    pub initrd: Option<Range>,
    pub fdt: Range,
    /// Memory the firmware keeps (/memreserve/ and /reserved-memory).
    pub reserved: Vec<Range>,
    /// Seeds the loader left for the random generator (/chosen/rng-seed,
    /// /chosen/kaslr-seed), by name; zeroed in the device tree once read.
    pub seeds: Vec<(&'static str, Vec<u8>)>,
    /// Network devices the device tree has, by node name and compatible.
    pub nics: Vec<(String, String)>,
    /// The virtio-mmio slots, populated or not (probing tells).
    pub virtio: Vec<VirtioSlot>,
    /// The PCIe host bridge, and every node with registers (the devices UIO
    /// may expose and the chips drivers look up by `compatible`).
    pub pci_host: Option<super::devnodes::PciHostNode>,
    pub platform: Vec<super::devnodes::PlatformNode>,
    /// PCIe ECAM windows ACPI's MCFG names (base, first and last bus):
    /// the firmware placed the BARs; virtio-pci functions on the first are
    /// driven, their INTx routed through the DSDT's `_PRT`.
    pub ecam: Vec<(u64, u8, u8)>,
    /// The DSDT's AML (physical range), for the `_PRT` (ACPI boots only).
    pub dsdt: Option<Range>,
    /// The interrupt controller devices interrupt (drivers/irqchip picks
    /// its driver by `compatible`; ACPI's MADT is translated to the same).
    pub irq_controller: Option<super::irqchip::ControllerNode>,
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

/// Why the device tree could not be read.
pub enum TreeError {
    /// The `fdt` crate's verdict on the header.
    Parse(fdt::FdtError),
    /// The structure block cannot be walked.
    Layout(gometal_core::boot::fdtnop::LayoutError),
    /// A node every machine's tree has is missing.
    Missing(&'static str),
}

impl core::fmt::Display for TreeError {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        match self {
            TreeError::Parse(e) => write!(f, "{e:?}"),
            TreeError::Layout(e) => write!(f, "{e}"),
            TreeError::Missing(node) => write!(f, "it has no {node} node"),
        }
    }
}

/// Reads the device tree at `blob` (physical address `dtb_pa`). NOP
/// tokens a loader left are removed first (core's boot/fdtnop.rs says
/// why), and the nodes the `fdt` crate would panic without (`/cpus`, and
/// `/memory` unless UEFI gave a memory map) are checked.
pub fn read(dtb_pa: u64, blob: &mut [u8]) -> Result<Machine, TreeError> {
    gometal_core::boot::fdtnop::strip_nops(blob).map_err(TreeError::Layout)?;
    let seeds = super::seeds::take(blob);
    let fdt = Fdt::new(blob).map_err(TreeError::Parse)?;
    if fdt.find_node("/cpus").is_none() {
        return Err(TreeError::Missing("/cpus"));
    }
    let mut m = Machine {
        fdt: Range { start: dtb_pa, end: dtb_pa + fdt.total_size() as u64 },
        seeds,
        ..Machine::default()
    };
    if let Some(ranges) = crate::arch::firmware_memory() {
        // UEFI started the kernel: its memory map says what is free RAM
        // (the firmware's runtime and ACPI memory is not).
        m.memory = ranges.iter().map(|&[start, end]| Range { start, end }).collect();
    } else if fdt.find_node("/memory").is_some() {
        for r in fdt.memory().regions() {
            let start = r.starting_address as u64;
            m.memory.push(Range { start, end: start + r.size.unwrap_or(0) as u64 });
        }
    } else {
        return Err(TreeError::Missing("/memory"));
    }
    let okay = |cpu: &fdt::standard_nodes::Cpu| cpu.property("status").and_then(|p| p.as_str()).is_none_or(|s| s == "okay");
    for cpu in fdt.cpus().filter(|c| okay(c)) {
        match crate::arch::cpu_unusable(&cpu) {
            None => m.hwids.push(cpu.ids().first()),
            Some(why) => m.unusable.push((cpu.ids().first(), why)),
        }
    }
    // The same CPUs, in the same order, as hwids.
    m.cpu_caches = super::topology::read(&fdt, |c| okay(c) && crate::arch::cpu_unusable(c).is_none());
    super::topology::record_places(&fdt, |c| okay(c) && crate::arch::cpu_unusable(c).is_none());
    m.arch = crate::arch::read_machine(&fdt);
    m.irq_controller = super::irqchip::root(&fdt);
    m.stdout = super::serial::stdout(&fdt);
    m.serials = super::serial::all(&fdt);
    m.reserved = reserved(&fdt);
    m.nics = nics(&fdt);
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
    if let Some(node) = fdt.find_node("/chosen") {
        if let Some(args) = node.property("bootargs") {
            m.bootargs = args.value.split(|&b| b == 0).next().unwrap_or(&[]).to_vec();
        }
        let cell = |name| node.property(name).and_then(|p| p.as_usize()).map(|v| v as u64);
        if let (Some(start), Some(end)) = (cell("linux,initrd-start"), cell("linux,initrd-end")) {
            m.initrd = Some(Range { start, end });
        }
    }
    Ok(m)
}

/// The /memreserve/ entries and the /reserved-memory nodes with a `reg`
/// (OpenSBI reserves its own memory there).
fn reserved(fdt: &Fdt) -> Vec<Range> {
    let mut out: Vec<Range> = fdt
        .memory_reservations()
        .map(|r| Range { start: r.address() as u64, end: r.address() as u64 + r.size() as u64 })
        .collect();
    if let Some(node) = fdt.find_node("/reserved-memory") {
        for child in node.children() {
            for r in child.reg().into_iter().flatten() {
                let start = r.starting_address as u64;
                out.push(Range { start, end: start + r.size.unwrap_or(0) as u64 });
            }
        }
    }
    out
}

/// Ethernet controllers (nodes named ethernet@…, or of device_type
/// "network"), so the boot can say which of them it does not drive.
fn nics(fdt: &Fdt) -> Vec<(String, String)> {
    fdt.all_nodes()
        .filter(|n| {
            n.name.split('@').next() == Some("ethernet")
                || n.property("device_type").and_then(|p| p.as_str()) == Some("network")
        })
        .filter(|n| n.property("status").and_then(|p| p.as_str()).is_none_or(|s| s == "okay"))
        .map(|n| {
            let compatible = n.compatible().map(|c| c.first()).unwrap_or("");
            (String::from(n.name), String::from(compatible))
        })
        .collect()
}
