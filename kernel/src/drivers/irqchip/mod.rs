//! Interrupt controllers: the chip between the devices and the CPUs,
//! chosen by the device tree's `compatible` (ACPI's MADT is translated to
//! the same by the architecture), as Linux's irqchip drivers are. The CPU
//! keeps what it defines itself (arch/: its timer, and its IPIs where it
//! has them: RISC-V's through the SBI); a controller driver routes device
//! lines to CPUs, acknowledges them, and on machines where IPIs are the
//! controller's (a GIC's SGIs) sends those too.
//!
//! One controller is driven, the one devices interrupt (boot/irqchip.rs
//! says which); on a board whose controller no driver here knows, the
//! boot stops with one line naming it (start/devices.rs). Adding a controller is a
//! file here, a line in `DRIVERS`, and its specifier format in core's
//! drivers/irqchip.rs — nothing in arch/ or generic code.

#[cfg(target_arch = "aarch64")]
mod gic;
mod plic;

use crate::arch::InterruptSink;
use gometal_core::drivers::irqchip::ControllerNode;
use gometal_core::drivers::irqchip::{self as spec, Family};
use spin::Once;

/// What the kernel asks of an interrupt controller.
pub trait IrqChip: Sync {
    /// Its name in /proc/interrupts.
    fn name(&self) -> &'static str;
    /// How its device-tree specifiers are numbered.
    fn family(&self) -> Family;
    /// This CPU's side of the controller (the probe did the boot CPU's).
    fn init_this_cpu(&self) {}
    /// Routes device line `line` to CPU `hwid` and enables it.
    fn route(&self, line: u32, hwid: usize);
    /// Moves `line` from CPU `from` to `to` without losing an interrupt.
    fn reroute(&self, line: u32, from: usize, to: usize);
    /// Masks (false) or unmasks (true) `line` where it is routed (`hwid`).
    fn set_enabled(&self, line: u32, hwid: usize, on: bool);
    /// Acknowledges and reports to `sink` every interrupt pending for CPU
    /// `hwid`; a device line is completed after its handler ran.
    fn take_pending(&self, hwid: usize, sink: &mut dyn InterruptSink);
    /// Sends an IPI to CPU `hwid`, if IPIs are this controller's to send.
    fn send_ipi(&self, _hwid: usize) -> bool {
        false
    }
}

/// A driver: the `compatible` strings it serves and how it starts.
struct Driver {
    compatible: &'static [&'static str],
    probe: fn(&ControllerNode) -> Result<&'static dyn IrqChip, &'static str>,
}

/// Every controller driver. The GIC's CPU interface is part of the Arm
/// architecture (GICv3's system registers), so its driver exists on arm64
/// only, as Linux's `ARM_GIC` depends on ARM.
const DRIVERS: &[Driver] = &[
    Driver { compatible: spec::PLIC, probe: plic::probe },
    #[cfg(target_arch = "aarch64")]
    Driver { compatible: spec::GIC_V3, probe: gic::probe_v3 },
    #[cfg(target_arch = "aarch64")]
    Driver { compatible: spec::GIC_V2, probe: gic::probe_v2 },
];

static CHIP: Once<&'static dyn IrqChip> = Once::new();

/// Why no controller is driven.
pub enum ProbeError {
    /// The machine names no interrupt controller.
    None,
    /// No driver here serves any of the node's `compatible` strings.
    NoDriver,
    /// A driver serves it, but the node is not usable (the reason).
    Bad(&'static str),
}

/// Starts the driver for `node` on the boot CPU; the name of the
/// controller it drives.
pub fn probe(node: Option<&ControllerNode>) -> Result<&'static str, ProbeError> {
    let node = node.ok_or(ProbeError::None)?;
    let driver = DRIVERS
        .iter()
        .find(|d| node.compatible_strs().any(|c| d.compatible.contains(&c)))
        .ok_or(ProbeError::NoDriver)?;
    let chip = (driver.probe)(node).map_err(ProbeError::Bad)?;
    CHIP.call_once(|| chip);
    Ok(chip.name())
}

/// The controller's name in /proc/interrupts ("none" without one).
pub fn name() -> &'static str {
    CHIP.get().map_or("none", |c| c.name())
}

/// The line a device-tree interrupt specifier for this controller names
/// (PCI `interrupt-map` entries are decoded after the probe).
pub fn decode(cells: &[u32]) -> Option<u32> {
    spec::decode(CHIP.get()?.family(), cells)
}

/// This CPU's side of the controller (each CPU but the boot CPU, as it
/// comes up).
pub fn init_this_cpu() {
    if let Some(chip) = CHIP.get() {
        chip.init_this_cpu();
    }
}

/// Routes `line` to CPU `hwid` and enables it.
pub fn route_irq(line: u32, hwid: usize) {
    if let Some(chip) = CHIP.get() {
        chip.route(line, hwid);
    }
}

/// Moves `line` from CPU `from` to `to` (`/proc/irq/N/smp_affinity`).
pub fn reroute_irq(line: u32, from: usize, to: usize) {
    if let Some(chip) = CHIP.get() {
        chip.reroute(line, from, to);
    }
}

/// Masks or unmasks `line` (UIO's interrupt control).
pub fn set_irq_enabled(line: u32, hwid: usize, on: bool) {
    if let Some(chip) = CHIP.get() {
        chip.set_enabled(line, hwid, on);
    }
}

/// Takes every interrupt the controller has pending for CPU `hwid`.
pub fn take_pending(hwid: usize, sink: &mut dyn InterruptSink) {
    if let Some(chip) = CHIP.get() {
        chip.take_pending(hwid, sink);
    }
}

/// Sends an IPI to CPU `hwid` the way this machine does: through the
/// CPU's own mechanism where it has one, else through the controller.
pub fn send_ipi(hwid: usize) {
    if !crate::arch::send_ipi(hwid) {
        if let Some(chip) = CHIP.get() {
            chip.send_ipi(hwid);
        }
    }
}
