//! What riscv64 reads from ACPI's tables: nothing yet. RISC-V ACPI
//! (the MADT's RINTC and PLIC entries, the RHCT) is not read, so firmware
//! that describes the machine only through ACPI gets one line saying the
//! MADT has no CPU this kernel can use (boot/acpi.rs); QEMU's virt, U-Boot
//! and OpenSBI all pass a device tree.

use super::machine::MachineInfo;
use crate::arch::acpimap::LinearMap;
use acpi::fadt::Fadt;
use acpi::madt::Madt;
use acpi::spcr::SpcrInterfaceType;
use acpi::AcpiTables;
use alloc::vec::Vec;
use core::pin::Pin;
use gometal_core::drivers::irqchip::ControllerNode;

/// No CPUs or controller from the MADT: RINTC entries are not read.
pub fn read_madt(_madt: Pin<&Madt>, _fadt: Option<Pin<&Fadt>>) -> Option<(MachineInfo, Vec<usize>, ControllerNode)> {
    None
}

/// The hart's timer has no ACPI table (its frequency is the RHCT's, unread).
pub fn read_acpi_timer(_tables: &AcpiTables<LinearMap>, _info: &mut MachineInfo) {}

/// The console driver and register width for an SPCR interface type: a
/// 16550, as RISC-V servers have.
pub fn spcr_uart(kind: SpcrInterfaceType) -> Option<(&'static str, u32)> {
    use SpcrInterfaceType::{Full16450, Full16550};
    matches!(kind, Full16550 | Full16450).then_some(("ns16550a", 1))
}
