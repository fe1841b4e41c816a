//! The machine's interrupt controller as the device tree describes it,
//! read into plain values for the driver its `compatible` chooses
//! (drivers/irqchip). Which controller: the root's `interrupt-parent`,
//! else the parent of the first device with interrupts (QEMU's riscv64
//! virt names the parent on each device, its arm64 virt on the root).
//! Per-CPU controllers under /cpus (RISC-V's `riscv,cpu-intc`) are the
//! CPU's, not a chip; a controller's outputs to them
//! (`interrupts-extended`) are resolved here to CPU ids.

use alloc::string::String;
use alloc::vec::Vec;
use fdt::node::FdtNode;
use fdt::Fdt;
pub use gometal_core::drivers::irqchip::ControllerNode;

fn cells(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes.chunks_exact(4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
}

/// The controller the machine's devices interrupt, if the tree names one.
pub fn root(fdt: &Fdt) -> Option<ControllerNode> {
    let from_root = fdt
        .find_node("/")
        .and_then(|r| r.property("interrupt-parent"))
        .and_then(|p| cells(p.value).next())
        .and_then(|ph| fdt.find_phandle(ph));
    let node = from_root.or_else(|| {
        let device = fdt.all_nodes().find(|n| n.property("interrupts").is_some())?;
        super::dtirq::parent(fdt, &device)
    })?;
    Some(read(fdt, &node))
}

fn read(fdt: &Fdt, node: &FdtNode) -> ControllerNode {
    ControllerNode {
        name: String::from(node.name),
        compatible: node.compatible().map(|c| c.all().map(String::from).collect()).unwrap_or_default(),
        regs: node
            .reg()
            .into_iter()
            .flatten()
            .map(|r| (r.starting_address as u64, r.size.unwrap_or(0) as u64))
            .collect(),
        cpu_outputs: cpu_outputs(fdt, node),
        props: node.properties().map(|p| (String::from(p.name), p.value.to_vec())).collect(),
    }
}

/// `interrupts-extended` as (CPU id, input) pairs: each entry is a
/// phandle and one cell; a phandle of a CPU's own controller (a child of
/// /cpus/cpu@N) names CPU N.
fn cpu_outputs(fdt: &Fdt, node: &FdtNode) -> Vec<(Option<usize>, u32)> {
    let mut cpu_of_phandle: Vec<(u32, usize)> = Vec::new();
    for cpu in fdt.find_node("/cpus").into_iter().flat_map(|c| c.children()) {
        let Some(id) = cpu.reg().and_then(|mut r| r.next()).map(|r| r.starting_address as usize) else { continue };
        for child in cpu.children() {
            if let Some(ph) = child.property("phandle").and_then(|p| cells(p.value).next()) {
                cpu_of_phandle.push((ph, id));
            }
        }
    }
    let Some(ext) = node.property("interrupts-extended") else { return Vec::new() };
    let raw: Vec<u32> = cells(ext.value).collect();
    raw.chunks_exact(2)
        .map(|pair| (cpu_of_phandle.iter().find(|(ph, _)| *ph == pair[0]).map(|&(_, id)| id), pair[1]))
        .collect()
}
