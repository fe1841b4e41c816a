//! The serial ports the device tree describes, and which of them is the
//! console: the node `/chosen/stdout-path` names (an alias or a path,
//! with the firmware's `:115200n8` options after a colon), as Linux's
//! serial console. drivers/uart picks a driver by `compatible`.

use alloc::string::String;
use alloc::vec::Vec;
use fdt::node::FdtNode;
use fdt::Fdt;

/// A serial port's node, read into plain values.
#[derive(Clone, Debug, Default)]
pub struct SerialNode {
    pub name: String,
    pub compatible: Vec<String>,
    pub base: u64,
    /// Registers are `1 << reg_shift` bytes apart (16550s on SoCs: 2).
    pub reg_shift: u32,
    /// Register access width in bytes (1 or 4).
    pub reg_io_width: u32,
    pub irq: Option<u32>,
}

fn u32_prop(node: &FdtNode, name: &str) -> Option<u32> {
    let v = node.property(name)?.value;
    Some(u32::from_be_bytes(v.get(..4)?.try_into().ok()?))
}

fn read_node(fdt: &Fdt, node: &FdtNode) -> Option<SerialNode> {
    let base = node.reg()?.next()?.starting_address as u64;
    Some(SerialNode {
        name: String::from(node.name),
        compatible: node.compatible().map(|c| c.all().map(String::from).collect()).unwrap_or_default(),
        base,
        reg_shift: u32_prop(node, "reg-shift").unwrap_or(0),
        reg_io_width: u32_prop(node, "reg-io-width").unwrap_or(1),
        irq: super::dtirq::first(fdt, node),
    })
}

/// The console the firmware names in /chosen/stdout-path, if it names one
/// that exists and is enabled.
pub fn stdout(fdt: &Fdt) -> Option<SerialNode> {
    let chosen = fdt.find_node("/chosen")?;
    let path = chosen.property("stdout-path").or_else(|| chosen.property("linux,stdout-path"))?.as_str()?;
    let path = path.split(':').next()?;
    let node = fdt.find_node(path)?;
    enabled(&node).then(|| read_node(fdt, &node))?
}

/// Every enabled serial port (nodes named serial@… or uart@…), in tree order.
pub fn all(fdt: &Fdt) -> Vec<SerialNode> {
    fdt.all_nodes()
        .filter(|n| {
            let base = n.name.split('@').next().unwrap_or("");
            (base == "serial" || base == "uart") && enabled(n)
        })
        .filter_map(|n| read_node(fdt, &n))
        .collect()
}

fn enabled(node: &FdtNode) -> bool {
    node.property("status").and_then(|p| p.as_str()).is_none_or(|s| s == "okay" || s == "ok")
}
