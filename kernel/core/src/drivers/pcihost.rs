//! The pure part of driving a `pci-host-ecam-generic` bridge from its
//! device-tree node: decoding `ranges` (where the bridge forwards memory
//! cycles, so where BARs may be placed), routing a device's INTx pin through
//! `interrupt-map`, and handing out BAR addresses. The kernel reads the
//! property cells and the config space; everything decided from them is here.

use alloc::vec::Vec;

/// The address space of a `ranges` entry (bits 24..25 of the child phys.hi cell).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Config,
    Io,
    Mem32,
    Mem64,
}

/// One `ranges` entry: PCI bus address `pci`, CPU physical address `cpu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub space: Space,
    pub prefetchable: bool,
    pub pci: u64,
    pub cpu: u64,
    pub size: u64,
}

fn pair(hi: u32, lo: u32) -> u64 {
    (hi as u64) << 32 | lo as u64
}

/// Decodes `ranges` (3 child address cells, `parent_cells` parent address
/// cells, 2 size cells, as the generic host binding has them). A truncated
/// last entry is dropped.
pub fn parse_ranges(cells: &[u32], parent_cells: usize) -> Vec<Window> {
    let entry = 3 + parent_cells + 2;
    let mut out = Vec::new();
    if parent_cells == 0 || parent_cells > 2 {
        return out;
    }
    for e in cells.chunks_exact(entry) {
        let space = match (e[0] >> 24) & 3 {
            0 => Space::Config,
            1 => Space::Io,
            2 => Space::Mem32,
            _ => Space::Mem64,
        };
        let cpu = if parent_cells == 2 { pair(e[3], e[4]) } else { e[3] as u64 };
        let size_at = 3 + parent_cells;
        out.push(Window {
            space,
            prefetchable: e[0] & (1 << 30) != 0,
            pci: pair(e[1], e[2]),
            cpu,
            size: pair(e[size_at], e[size_at + 1]),
        });
    }
    out
}

/// The parent interrupt number of INTx `pin` (1 = INTA .. 4 = INTD) of the
/// device at `device` (0..31) on bus `bus`, from `interrupt-map` and
/// `interrupt-map-mask`. Each map entry is 3 child address cells, 1 child
/// interrupt cell, the parent's phandle, `parent_addr_cells` and then
/// `parent_int_cells` cells: the parent's interrupt specifier, which this
/// returns (the architecture decodes it: one cell for the PLIC, three for a GIC).
pub fn route_intx<'a>(map: &'a [u32], mask: &[u32], bus: u8, device: u8, pin: u8, parent_addr_cells: usize, parent_int_cells: usize) -> Option<&'a [u32]> {
    // Cell counts come from the device tree: bound them (the spec's
    // largest is 3) so the entry length cannot overflow.
    if mask.len() != 4 || parent_int_cells == 0 || parent_int_cells > 3 || parent_addr_cells > 3 || !(1..=4).contains(&pin) {
        return None;
    }
    let key = [(bus as u32) << 16 | (device as u32) << 11, 0, 0, pin as u32];
    let want: Vec<u32> = key.iter().zip(mask).map(|(k, m)| k & m).collect();
    let entry = 5 + parent_addr_cells + parent_int_cells;
    map.chunks_exact(entry).find(|e| e[..4].iter().zip(mask).map(|(c, m)| c & m).eq(want.iter().copied())).map(|e| &e[5 + parent_addr_cells..])
}

/// Hands out naturally aligned BAR addresses from one memory window, in
/// CPU physical addresses (the window's PCI address is the one written
/// into the BAR: `to_pci`).
#[derive(Clone, Copy, Debug)]
pub struct BarAllocator {
    window: Window,
    next: u64,
}

impl BarAllocator {
    pub fn new(window: Window) -> Self {
        BarAllocator { window, next: window.cpu }
    }

    /// A CPU address for a BAR of `size` bytes (a power of two, at least a
    /// page so each BAR can be mapped to a program on its own), or None if
    /// the window is full or the size is not a power of two.
    pub fn alloc(&mut self, size: u64) -> Option<u64> {
        if size == 0 || !size.is_power_of_two() {
            return None;
        }
        let size = size.max(4096);
        let start = self.next.checked_add(size - 1)? & !(size - 1);
        let end = start.checked_add(size)?;
        if end > self.window.cpu.saturating_add(self.window.size) {
            return None;
        }
        self.next = end;
        Some(start)
    }

    /// The bus address that the CPU address `cpu` of this window has.
    pub fn to_pci(&self, cpu: u64) -> u64 {
        cpu.wrapping_sub(self.window.cpu).wrapping_add(self.window.pci)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // QEMU 7.2 virt's pcie node (dumped with -M virt,dumpdtb=).
    const RANGES: [u32; 21] = [
        0x1000000, 0, 0, 0, 0x3000000, 0, 0x10000, 0x2000000, 0, 0x40000000, 0, 0x40000000, 0, 0x40000000, 0x3000000, 4, 0, 4, 0, 4, 0,
    ];

    fn virt_map() -> Vec<u32> {
        let mut m = Vec::new();
        for slot in 0..4u32 {
            for pin in 1..=4u32 {
                m.extend([slot << 11, 0, 0, pin, 3, 0x20 + (slot + pin - 1) % 4]);
            }
        }
        m
    }

    #[test]
    fn ranges_of_qemu_virt() {
        let w = parse_ranges(&RANGES, 2);
        assert_eq!(w.len(), 3);
        assert_eq!(w[0], Window { space: Space::Io, prefetchable: false, pci: 0, cpu: 0x300_0000, size: 0x10000 });
        assert_eq!(w[1], Window { space: Space::Mem32, prefetchable: false, pci: 0x4000_0000, cpu: 0x4000_0000, size: 0x4000_0000 });
        assert_eq!(w[2].space, Space::Mem64);
        assert_eq!(w[2].cpu, 0x4_0000_0000);
        assert!(parse_ranges(&RANGES[..6], 2).is_empty());
        assert!(parse_ranges(&RANGES, 0).is_empty());
    }

    #[test]
    fn intx_swizzle_of_qemu_virt() {
        let map = virt_map();
        let mask = [0x1800, 0, 0, 7];
        // Device 1 (the first after the host bridge), INTA: PLIC 33.
        assert_eq!(route_intx(&map, &mask, 0, 1, 1, 0, 1), Some(&[0x21][..]));
        assert_eq!(route_intx(&map, &mask, 0, 0, 1, 0, 1), Some(&[0x20][..]));
        assert_eq!(route_intx(&map, &mask, 0, 3, 4, 0, 1), Some(&[0x22][..]));
        // The mask folds device 5 onto slot 1.
        assert_eq!(route_intx(&map, &mask, 0, 5, 1, 0, 1), Some(&[0x21][..]));
        assert_eq!(route_intx(&map, &mask, 0, 1, 0, 0, 1), None);
        assert_eq!(route_intx(&map, &mask[..3], 0, 1, 1, 0, 1), None);
        assert_eq!(route_intx(&map[..5], &mask, 0, 1, 1, 0, 1), None);
        // Hostile cell counts from the device tree.
        assert_eq!(route_intx(&map, &mask, 0, 1, 1, usize::MAX, 1), None);
        assert_eq!(route_intx(&map, &mask, 0, 1, 1, 0, usize::MAX), None);
    }

    #[test]
    fn bars_are_aligned_and_bounded() {
        let w = Window { space: Space::Mem32, prefetchable: false, pci: 0x4000_0000, cpu: 0x4000_0000, size: 0x10_0000 };
        let mut a = BarAllocator::new(w);
        assert_eq!(a.alloc(0x100), Some(0x4000_0000)); // rounded up to a page
        assert_eq!(a.alloc(0x8000), Some(0x4000_8000));
        assert_eq!(a.alloc(0x1000), Some(0x4001_0000));
        assert_eq!(a.alloc(3), None);
        assert_eq!(a.alloc(0x10_0000), None);
        assert_eq!(a.to_pci(0x4000_8000), 0x4000_8000);
        // A BAR larger than the window, and a window at the top of the
        // address space: no overflow, no address.
        assert_eq!(a.alloc(1 << 40), None);
        assert_eq!(a.alloc(1 << 63), None);
        let top = Window { space: Space::Mem32, prefetchable: false, pci: u64::MAX, cpu: u64::MAX - 0xfff, size: u64::MAX };
        let mut t = BarAllocator::new(top);
        assert_eq!(t.alloc(0x2000), None);
        let _ = t.to_pci(0);
    }
}
