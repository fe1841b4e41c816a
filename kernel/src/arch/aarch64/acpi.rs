//! What aarch64 reads from ACPI's MADT for itself (boot/acpi.rs reads the
//! rest): the CPUs (GICC entries: their MPIDR, enabled or not), the GIC
//! (GICD: distributor and version; GICR, or each GICC's redistributor,
//! on GICv3; the GICC's CPU interface on GICv2), and the PSCI conduit
//! the FADT named. The counter frequency is CNTFRQ_EL0.

use super::irq::GicInfo;
use super::machine::MachineInfo;
use acpi::fadt::Fadt;
use acpi::madt::{Madt, MadtEntry};
use acpi::spcr::SpcrInterfaceType;
use alloc::vec::Vec;
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

/// The machine description and the usable CPUs' ids from the MADT (and
/// the PSCI conduit from the FADT's boot flags: HVC when it has none);
/// None without a distributor or an enabled CPU.
pub fn read_madt(madt: Pin<&Madt>, fadt: Option<Pin<&Fadt>>) -> Option<(MachineInfo, Vec<usize>)> {
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
        (3.., Some(redist), _) | (0, Some(redist), _) => GicInfo::V3 { dist, redist, redist_stride: REDIST_STRIDE },
        (_, _, Some(cpu)) => GicInfo::V2 { dist, cpu },
        _ => return None,
    };
    let info = MachineInfo { gic: Some(gic), psci_smc: !psci_hvc, timebase_hz: super::cpu::counter_hz() };
    Some((info, hwids))
}
