//! The machine from ACPI tables, for UEFI firmware that hands over no
//! device tree (QEMU's arm64 virt under EDK2 by default; arm64 cloud VMs):
//! the `acpi` crate (pinned in Cargo.toml) parses the static tables; no
//! AML is interpreted. Read here:
//!
//! - RAM: the UEFI memory map (the EFI entry recorded it; ACPI has none);
//! - CPUs and the interrupt controller: the MADT (the architecture reads
//!   its own entries: GICC/GICD/GICR on arm64), the PSCI conduit from the
//!   FADT's boot flags, the timer's interrupt (the architecture's table:
//!   the GTDT on arm64);
//! - the console: the SPCR (a PL011 or a 16550, with its interrupt);
//! - PCIe: the MCFG's ECAM window; the firmware placed the BARs, and the
//!   INTx routing is read from the DSDT's static `_PRT` package (core's
//!   acpiprt.rs, no AML interpreter), so virtio-pci functions (console,
//!   entropy, network, 9P) are driven (drivers/virtio/pci.rs).
//!
//! What only the DSDT's device objects describe (virtio-mmio slots, the
//! RTC, GPIO) is not found: no virtio-mmio, no RTC (the clock starts at
//! 1970).

use super::machine::{Machine, Range};
use super::serial::SerialNode;
use crate::arch::acpimap::LinearMap;
use acpi::AcpiTables;
use alloc::string::String;
use alloc::vec;

/// Why the ACPI tables could not describe the machine.
pub enum AcpiMachineError {
    Tables(acpi::AcpiError),
    NoCpus,
}

impl core::fmt::Display for AcpiMachineError {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        match self {
            AcpiMachineError::Tables(e) => write!(f, "{e:?}"),
            AcpiMachineError::NoCpus => f.write_str("the MADT has no usable CPU or no interrupt controller this kernel drives"),
        }
    }
}

/// Reads the machine from the ACPI tables whose RSDP is at `rsdp`.
pub fn read(rsdp: u64) -> Result<Machine, AcpiMachineError> {
    // SAFETY: rsdp is the firmware's RSDP (the EFI configuration table),
    // in memory the kernel keeps (ACPI memory is not in the usable ranges).
    let tables = unsafe { AcpiTables::from_rsdp(LinearMap, rsdp as usize) }.map_err(AcpiMachineError::Tables)?;
    let mut m = Machine::default();
    if let Some(ranges) = crate::arch::firmware_memory() {
        m.memory = ranges.iter().map(|&[start, end]| Range { start, end }).collect();
    }
    let fadt = tables.find_table::<acpi::fadt::Fadt>().ok();
    let madt = tables.find_table::<acpi::madt::Madt>().map_err(AcpiMachineError::Tables)?;
    let (mut info, hwids, controller) =
        crate::arch::read_madt(madt.get(), fadt.as_ref().map(|f| f.get())).ok_or(AcpiMachineError::NoCpus)?;
    m.irq_controller = Some(controller);
    crate::arch::read_acpi_timer(&tables, &mut info);
    m.arch = info;
    m.cpu_caches = vec![Default::default(); hwids.len()];
    m.hwids = hwids;
    if let Ok(spcr) = tables.find_table::<acpi::spcr::Spcr>() {
        if let (Some((compatible, width)), Some(Ok(addr))) = (crate::arch::spcr_uart(spcr.interface_type()), spcr.base_address()) {
            m.stdout = Some(SerialNode {
                name: String::from("SPCR"),
                compatible: vec![String::from(compatible)],
                base: addr.address,
                reg_shift: 0,
                reg_io_width: width,
                irq: spcr.global_system_interrupt(),
            });
            m.serials = m.stdout.iter().cloned().collect();
        }
    }
    if let Ok(dsdt) = tables.dsdt() {
        let start = dsdt.address as u64;
        m.dsdt = Some(Range { start, end: start + dsdt.length as u64 });
    }
    if let Ok(mcfg) = tables.find_table::<acpi::mcfg::Mcfg>() {
        for e in mcfg.entries() {
            let (base, first, last) = (e.base_address, e.bus_number_start, e.bus_number_end);
            m.ecam.push((base, first, last));
        }
    }
    Ok(m)
}
