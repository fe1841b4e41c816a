//! What aarch64 reads from ACPI's tables for itself (boot/acpi.rs reads
//! the rest): the CPUs (the MADT's GICC entries: their MPIDR, enabled or
//! not), the GIC (GICD: distributor and version; GICR, or each GICC's
//! redistributor, on GICv3; the GICC's CPU interface on GICv2), the PSCI
//! conduit the FADT named, and the virtual timer's interrupt and trigger
//! mode from the GTDT (the `acpi` crate has no GTDT type: `Gtdt` below,
//! ACPI 6.5 section 5.2.25). The counter frequency is CNTFRQ_EL0. Not
//! read: the GTDT's platform timers (memory-mapped timers and watchdogs,
//! which the kernel does not use), the IORT (no device behind an SMMU or
//! ITS is used) and the PPTT (cache topology: none).

use super::machine::MachineInfo;
use super::timer::TimerIrq;
use acpi::fadt::Fadt;
use acpi::madt::{Madt, MadtEntry};
use acpi::sdt::{SdtHeader, Signature};
use acpi::spcr::SpcrInterfaceType;
use crate::arch::acpimap::LinearMap;
use acpi::{AcpiTable, AcpiTables};
use alloc::string::String;
use alloc::vec::Vec;
use gometal_core::drivers::irqchip::ControllerNode;
use core::pin::Pin;

/// GICv3's redistributor frames: RD_base and SGI_base, 64 KiB each.
const REDIST_STRIDE: u64 = 0x20000;

/// The console driver (its device-tree compatible) and register width
/// for an SPCR interface type.
pub fn spcr_uart(kind: SpcrInterfaceType) -> Option<(&'static str, u32)> {
    match kind {
        SpcrInterfaceType::ArmPL011 => Some(("arm,pl011", 4)),
        SpcrInterfaceType::Full16550 | SpcrInterfaceType::Full16450 => Some(("ns16550a", 1)),
        _ => None,
    }
}

/// The machine description, the usable CPUs' ids and the GIC from the
/// MADT (and the PSCI conduit from the FADT's boot flags: HVC when it has
/// none); None without a distributor or an enabled CPU. The GIC's entries
/// become the node a device tree would have (`arm,gic-v3` with its
/// distributor and redistributor region, or `arm,cortex-a15-gic` with its
/// CPU interface), so one driver table chooses (drivers/irqchip).
pub fn read_madt(madt: Pin<&Madt>, fadt: Option<Pin<&Fadt>>) -> Option<(MachineInfo, Vec<usize>, ControllerNode)> {
    let psci_hvc = fadt.is_none_or(|f| {
        let flags = f.arm_boot_arch;
        flags.use_hvc_as_psci_conduit()
    });
    let mut hwids = Vec::new();
    let (mut dist, mut version, mut redist, mut cpu_if) = (None, 0u8, None, None);
    for entry in madt.entries() {
        match entry {
            MadtEntry::Gicc(g) => {
                let (flags, mpidr, cpu, gicr) = (g.flags, g.mpidr, g.gic_registers_address, g.gicr_base_address);
                if flags & 1 != 0 {
                    hwids.push((mpidr & 0xff_00ff_ffff) as usize);
                }
                cpu_if = cpu_if.or(Some(cpu));
                if gicr != 0 && redist.is_none() {
                    redist = Some(gicr);
                }
            }
            MadtEntry::Gicd(d) => {
                dist = Some(d.physical_base_address);
                version = d.gic_version;
            }
            MadtEntry::GicRedistributor(r) => redist = Some(r.discovery_range_base_address),
            _ => {}
        }
    }
    let dist = dist?;
    if hwids.is_empty() {
        return None;
    }
    let gic = match (version, redist, cpu_if) {
        (3.., Some(redist), _) | (0, Some(redist), _) => gic_node("arm,gic-v3", [dist, redist]),
        (_, _, Some(cpu)) => gic_node("arm,cortex-a15-gic", [dist, cpu]),
        _ => return None,
    };
    let info = MachineInfo { psci_smc: !psci_hvc, timebase_hz: super::cpu::counter_hz(), timer: None };
    Some((info, hwids, gic))
}

/// A GIC as a device tree would describe it: its two register blocks
/// (distributor first), and for GICv3 the MADT's frame stride.
fn gic_node(compatible: &str, regs: [u64; 2]) -> ControllerNode {
    ControllerNode {
        name: String::from("MADT GIC"),
        compatible: alloc::vec![String::from(compatible)],
        regs: regs.iter().map(|&base| (base, 0)).collect(),
        props: alloc::vec![(String::from("redistributor-stride"), REDIST_STRIDE.to_be_bytes().to_vec())],
        ..ControllerNode::default()
    }
}

/// The Generic Timer Description Table, up to its platform timers
/// (revision 2 and later; GSIVs are GIC INTIDs; flags bit 0: edge
/// triggered, bit 1: active low, bit 2: always on).
#[repr(C, packed)]
pub struct Gtdt {
    header: SdtHeader,
    cnt_control_base: u64,
    _reserved: u32,
    secure_el1_gsiv: u32,
    secure_el1_flags: u32,
    non_secure_el1_gsiv: u32,
    non_secure_el1_flags: u32,
    virtual_el1_gsiv: u32,
    virtual_el1_flags: u32,
    el2_gsiv: u32,
    el2_flags: u32,
    cnt_read_base: u64,
    platform_timer_count: u32,
    platform_timer_offset: u32,
}

// SAFETY: Gtdt is the table's layout (repr(C, packed)), its header first.
unsafe impl AcpiTable for Gtdt {
    const SIGNATURE: Signature = Signature::GTDT;

    fn header(&self) -> &SdtHeader {
        &self.header
    }
}

/// The virtual timer's interrupt from the GTDT (the architected INTID 27
/// stays where there is no GTDT, or it names no PPI).
pub fn read_acpi_timer(tables: &AcpiTables<LinearMap>, info: &mut MachineInfo) {
    let Ok(gtdt) = tables.find_table::<Gtdt>() else { return };
    let (length, gsiv, flags) = (gtdt.header.length, gtdt.virtual_el1_gsiv, gtdt.virtual_el1_flags);
    if (length as usize) < core::mem::offset_of!(Gtdt, el2_gsiv) {
        return;
    }
    info.timer = TimerIrq::checked(gsiv, flags & 1 != 0, "the GTDT");
}
