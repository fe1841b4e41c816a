//! Device-tree nodes the UIO layer may hand to a program: the PCIe host
//! bridge (`pci-host-ecam-generic`) with the properties needed to place BARs
//! and route interrupts, and every platform node with a register block
//! (looked up later by `compatible`: UIO's devices, the drivers' chips,
//! such as the RTC). Read at boot, like the
//! rest of machine.rs, while the device tree is still intact.

use alloc::string::String;
use alloc::vec::Vec;
use fdt::node::FdtNode;
use fdt::Fdt;
use gometal_core::drivers::pcihost::{parse_ranges, Window};

#[derive(Clone, Debug, Default)]
pub struct PciHostNode {
    pub ecam: u64,
    pub ecam_size: u64,
    pub windows: Vec<Window>,
    pub interrupt_map: Vec<u32>,
    pub interrupt_map_mask: Vec<u32>,
    /// #address-cells and #interrupt-cells of the interrupt parent named in
    /// interrupt-map (the PLIC, a GIC).
    pub parent_addr_cells: usize,
    pub parent_int_cells: usize,
}

#[derive(Clone, Debug)]
pub struct PlatformNode {
    pub name: String,
    pub compatible: Vec<String>,
    pub base: u64,
    pub size: u64,
    /// Its first interrupt, if it has one the controller can take.
    pub irq: Option<u32>,
}

fn cells(node: &FdtNode, name: &str) -> Vec<u32> {
    node.property(name)
        .map(|p| p.value.chunks_exact(4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]])).collect())
        .unwrap_or_default()
}

fn usize_prop(node: &FdtNode, name: &str) -> Option<usize> {
    node.property(name).and_then(|p| p.as_usize())
}

/// The first `pci-host-ecam-generic` bridge, if the machine has one.
pub fn pci_host(fdt: &Fdt) -> Option<PciHostNode> {
    let node = fdt.find_compatible(&["pci-host-ecam-generic"])?;
    let reg = node.reg()?.next()?;
    let ranges = cells(&node, "ranges");
    // The bridge's parent (QEMU's /soc) has 2 address cells; an entry is then
    // 7 cells. A 1-cell parent gives 6-cell entries.
    let parent_cells = if ranges.len().is_multiple_of(7) { 2 } else { 1 };
    let map = cells(&node, "interrupt-map");
    // Each entry: child unit address (3 cells), child pin (1), the parent's
    // phandle, then the parent's address and specifier.
    let parent = map.get(4).and_then(|&phandle| fdt.find_phandle(phandle));
    Some(PciHostNode {
        ecam: reg.starting_address as u64,
        ecam_size: reg.size.unwrap_or(0) as u64,
        windows: parse_ranges(&ranges, parent_cells),
        interrupt_map: map,
        interrupt_map_mask: cells(&node, "interrupt-map-mask"),
        parent_addr_cells: parent.as_ref().and_then(|p| usize_prop(p, "#address-cells")).unwrap_or(0),
        parent_int_cells: parent.as_ref().and_then(|p| usize_prop(p, "#interrupt-cells")).unwrap_or(1),
    })
}

/// Every node with a `compatible` and a register block (a `reg` with a
/// size: CPU nodes have an id there, not registers).
pub fn platform(fdt: &Fdt) -> Vec<PlatformNode> {
    let mut out = Vec::new();
    for node in fdt.all_nodes() {
        let (Some(compat), Some(reg)) = (node.compatible(), node.reg().and_then(|mut r| r.next())) else {
            continue;
        };
        let Some(size) = reg.size else { continue };
        out.push(PlatformNode {
            name: String::from(node.name),
            compatible: compat.all().map(String::from).collect(),
            base: reg.starting_address as u64,
            size: size as u64,
            irq: super::dtirq::first(fdt, &node),
        });
    }
    out
}

impl PlatformNode {
    /// Whether one of its `compatible` strings is in `names`.
    pub fn is(&self, names: &[&str]) -> bool {
        self.compatible.iter().any(|c| names.contains(&c.as_str()))
    }
}
