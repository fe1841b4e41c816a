//! A device-tree node's interrupts as the interrupt controller numbers
//! them. The `interrupts` property is a list of specifiers whose size is
//! the interrupt parent's `#interrupt-cells` (1 for the PLIC, 3 for a
//! GIC); the parent's family (core's drivers/irqchip.rs, chosen by its
//! `compatible`) decodes each specifier.
//! The parent is the node's `interrupt-parent`, else the root's (QEMU's
//! riscv64 virt names it on each device, its aarch64 virt on the root); the
//! `fdt` crate reads only one-cell specifiers, hence this file.

use alloc::vec::Vec;
use fdt::node::FdtNode;
use fdt::Fdt;
use gometal_core::drivers::irqchip;

fn u32_cells(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes.chunks_exact(4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
}

/// The interrupt controller `node`'s interrupts go to.
pub fn parent<'b, 'a>(fdt: &'b Fdt<'a>, node: &FdtNode<'b, 'a>) -> Option<FdtNode<'b, 'a>> {
    let phandle = node
        .property("interrupt-parent")
        .or_else(|| fdt.find_node("/")?.property("interrupt-parent"))
        .and_then(|p| u32_cells(p.value).next())?;
    fdt.find_phandle(phandle)
}

/// Every interrupt of `node`, decoded; specifiers of a controller no
/// driver knows, or that its family cannot have, are left out.
pub fn all(fdt: &Fdt, node: &FdtNode) -> Vec<u32> {
    let Some(prop) = node.property("interrupts") else { return Vec::new() };
    let Some(parent) = parent(fdt, node) else { return Vec::new() };
    let Some(family) = parent.compatible().and_then(|c| irqchip::family(c.all())) else { return Vec::new() };
    let cells = parent.interrupt_cells().unwrap_or(1).max(1);
    let raw: Vec<u32> = u32_cells(prop.value).collect();
    raw.chunks_exact(cells).filter_map(|spec| irqchip::decode(family, spec)).collect()
}

/// The first interrupt of `node`.
pub fn first(fdt: &Fdt, node: &FdtNode) -> Option<u32> {
    all(fdt, node).into_iter().next()
}
