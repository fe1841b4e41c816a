//! The /dev and /sys entries of a UIO device, with Linux's names and
//! formats (drivers/uio/uio.c): /dev/uioN; /sys/class/uio/uioN/{name,
//! version,event}; maps/mapM/{name,addr,offset,size}; and for a PCI device
//! device/{config,vendor,device}, the paths a driver written for
//! uio_pci_generic reads and writes.

use super::{Source, UioDevice};
use super::file::{tree_node, UioNode};
use crate::fs::inode::Inode;
use crate::fs::tree;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use pci_types::PciHeader;

/// A read-only text file fixed at boot (a handful per device, leaked: they
/// live as long as the kernel).
fn text(path: &str, content: String) {
    let bytes: &'static [u8] = Box::leak(content.into_bytes().into_boxed_slice());
    tree::add_at(path.as_bytes(), Inode::new_file(0o444, bytes, 0));
}

pub fn publish(d: &UioDevice) {
    let n = d.index as u8;
    let dir = format!("/sys/class/uio/uio{}", d.index);
    tree::add_at(format!("/dev/uio{}", d.index).as_bytes(), tree_node(n, UioNode::Dev));
    text(&format!("{dir}/name"), format!("{}\n", d.name));
    text(&format!("{dir}/version"), String::from("0.01.0\n"));
    tree::add_at(format!("{dir}/event").as_bytes(), tree_node(n, UioNode::Event));
    for (m, map) in d.maps.iter().enumerate() {
        let mdir = format!("{dir}/maps/map{m}");
        // Linux prints addr and size with %pa: 0x and 16 hex digits.
        text(&format!("{mdir}/name"), format!("{}\n", map.name));
        text(&format!("{mdir}/addr"), format!("0x{:016x}\n", map.pa));
        text(&format!("{mdir}/offset"), format!("0x{:x}\n", map.pa & 0xfff));
        text(&format!("{mdir}/size"), format!("0x{:016x}\n", map.size));
    }
    if let Source::Pci { ecam, addr } = &d.source {
        tree::add_at(format!("{dir}/device/config").as_bytes(), tree_node(n, UioNode::Config));
        let (vendor, device) = PciHeader::new(*addr).id(ecam);
        text(&format!("{dir}/device/vendor"), format!("0x{vendor:04x}\n"));
        text(&format!("{dir}/device/device"), format!("0x{device:04x}\n"));
        let class = ecam.read32(*addr, 8) >> 8;
        text(&format!("{dir}/device/class"), format!("0x{class:06x}\n"));
        // Linux's device/irq: the line /proc/irq/N is named after.
        if let Some(irq) = d.irq {
            text(&format!("{dir}/device/irq"), format!("{irq}\n"));
        }
    }
}
