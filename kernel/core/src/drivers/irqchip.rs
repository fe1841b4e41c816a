//! Interrupt controllers as data: a controller's description (from the
//! device tree, or translated from ACPI's MADT by the architecture), how
//! each controller family numbers the lines a device-tree `interrupts` (or
//! `interrupt-map`) entry names, and which `compatible` strings belong to
//! each family. The kernel's chip drivers (kernel/src/drivers/irqchip) are
//! chosen by the same strings, and the boot code decodes a node's
//! interrupts by its parent's family before any driver runs. A line is
//! the number the controller's driver uses: the PLIC's source number, the
//! GIC's INTID.

use alloc::string::String;
use alloc::vec::Vec;

/// An interrupt controller's node, read into plain values.
#[derive(Clone, Debug, Default)]
pub struct ControllerNode {
    pub name: String,
    pub compatible: Vec<String>,
    /// Register blocks, (base, size), in `reg` order.
    pub regs: Vec<(u64, u64)>,
    /// Each output in `interrupts-extended` order (a PLIC's contexts): the
    /// CPU whose local controller it reaches (None: not a CPU's) and the
    /// input there (on RISC-V, the interrupt cause: 9 is S-mode external).
    pub cpu_outputs: Vec<(Option<usize>, u32)>,
    /// Every property's raw bytes, for what only the driver understands
    /// (a GICv3's `redistributor-stride`, `#redistributor-regions`).
    pub props: Vec<(String, Vec<u8>)>,
}

impl ControllerNode {
    /// A property's bytes.
    pub fn prop(&self, name: &str) -> Option<&[u8]> {
        self.props.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_slice())
    }

    /// A property as one big-endian number of one or two cells.
    pub fn prop_u64(&self, name: &str) -> Option<u64> {
        let v = self.prop(name)?;
        match v.len() {
            4 => Some(u32::from_be_bytes(v.try_into().ok()?) as u64),
            8 => Some(u64::from_be_bytes(v.try_into().ok()?)),
            _ => None,
        }
    }

    /// The compatible strings, borrowed.
    pub fn compatible_strs(&self) -> impl Iterator<Item = &str> {
        self.compatible.iter().map(|s| s.as_str())
    }
}

/// A controller family whose specifiers this file decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// RISC-V platform-level interrupt controller: one cell, the source (1..1024).
    Plic,
    /// Arm GIC v2 or v3: three cells, (0: SPI | 1: PPI, number, flags).
    Gic,
}

/// The PLIC's device-tree names (QEMU virt, the SiFive boards, the
/// T-Head C9xx cores' copy).
pub const PLIC: &[&str] = &["riscv,plic0", "sifive,plic-1.0.0", "thead,c900-plic"];
/// GICv3 (distributor, redistributors; the CPU interface is system registers).
pub const GIC_V3: &[&str] = &["arm,gic-v3"];
/// GICv2 and its predecessors with the same programming model.
pub const GIC_V2: &[&str] = &["arm,cortex-a15-gic", "arm,gic-400", "arm,cortex-a9-gic", "arm,cortex-a7-gic", "arm,gic-v2"];

/// INTIDs 1020..1024 are special in every GIC (1023: nothing pending).
pub const GIC_SPECIAL: u32 = 1020;
/// Sources a PLIC can have (0 means "none").
pub const PLIC_SOURCES: u32 = 1024;

/// The family of the first of `compatible`'s strings a family claims.
pub fn family<'a>(compatible: impl IntoIterator<Item = &'a str>) -> Option<Family> {
    compatible.into_iter().find_map(|c| {
        if PLIC.contains(&c) {
            Some(Family::Plic)
        } else if GIC_V3.contains(&c) || GIC_V2.contains(&c) {
            Some(Family::Gic)
        } else {
            None
        }
    })
}

/// The line one specifier names, or None if the family cannot have it.
pub fn decode(family: Family, cells: &[u32]) -> Option<u32> {
    match family {
        Family::Plic => match cells {
            [line, ..] if (1..PLIC_SOURCES).contains(line) => Some(*line),
            _ => None,
        },
        Family::Gic => {
            let line = match cells {
                [0, n, ..] => n.checked_add(32)?,
                [1, n, ..] if *n < 16 => 16 + n,
                _ => return None,
            };
            (line < GIC_SPECIAL).then_some(line)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_of_one_or_two_cells() {
        let node = ControllerNode {
            props: alloc::vec![
                ("redistributor-stride".into(), alloc::vec![0, 0, 0, 0, 0, 2, 0, 0]),
                ("#redistributor-regions".into(), alloc::vec![0, 0, 0, 2]),
                ("odd".into(), alloc::vec![1, 2, 3]),
            ],
            ..Default::default()
        };
        assert_eq!(node.prop_u64("redistributor-stride"), Some(0x20000));
        assert_eq!(node.prop_u64("#redistributor-regions"), Some(2));
        assert_eq!(node.prop_u64("odd"), None);
        assert_eq!(node.prop_u64("missing"), None);
    }

    #[test]
    fn families_by_compatible() {
        assert_eq!(family(["sifive,fu540-c000-plic", "sifive,plic-1.0.0"]), Some(Family::Plic));
        assert_eq!(family(["arm,gic-v3"]), Some(Family::Gic));
        assert_eq!(family(["arm,cortex-a15-gic"]), Some(Family::Gic));
        assert_eq!(family(["brcm,bcm2836-l1-intc"]), None);
        assert_eq!(family([]), None);
    }

    #[test]
    fn plic_specifiers() {
        assert_eq!(decode(Family::Plic, &[10]), Some(10));
        assert_eq!(decode(Family::Plic, &[0]), None, "source 0 means none");
        assert_eq!(decode(Family::Plic, &[1024]), None);
        assert_eq!(decode(Family::Plic, &[]), None);
    }

    #[test]
    fn gic_specifiers() {
        assert_eq!(decode(Family::Gic, &[0, 1, 4]), Some(33), "SPI 1");
        assert_eq!(decode(Family::Gic, &[1, 11, 4]), Some(27), "PPI 11: the virtual timer");
        assert_eq!(decode(Family::Gic, &[1, 16, 4]), None, "PPIs end at 15");
        assert_eq!(decode(Family::Gic, &[0, 988, 4]), None, "1020 and up are special");
        assert_eq!(decode(Family::Gic, &[0, u32::MAX, 4]), None);
        assert_eq!(decode(Family::Gic, &[2, 1, 4]), None, "no such kind");
        assert_eq!(decode(Family::Gic, &[0]), None);
    }
}
