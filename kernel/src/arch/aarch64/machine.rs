//! What aarch64 reads from the device tree for itself: the PSCI conduit
//! (HVC or SMC), and the counter frequency (CNTFRQ_EL0, or the timer node's
//! clock-frequency where firmware left CNTFRQ unset), and the virtual
//! timer's interrupt (the timer node's third `interrupts` entry). The
//! generic machine description (boot/) keeps this beside what every
//! architecture reads; the GIC is a chip (drivers/irqchip).

use super::timer::TimerIrq;
use fdt::standard_nodes::Cpu;
use fdt::Fdt;

#[derive(Debug, Default)]
pub struct MachineInfo {
    /// /psci's method is "smc" (else HVC).
    pub psci_smc: bool,
    /// Ticks per second of the virtual counter.
    pub timebase_hz: u64,
    /// The virtual timer's interrupt, where the firmware describes it.
    pub timer: Option<TimerIrq>,
}

impl MachineInfo {
    /// A line for `-v` about the CPU's own entropy source: none is used.
    pub fn entropy_note(&self) -> Option<&'static str> {
        None
    }

    /// A line for `-v` about the timer's interrupt, where the firmware
    /// described it.
    pub fn timer_note(&self) -> Option<TimerIrq> {
        self.timer
    }
}

fn u32_prop(bytes: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?))
}

/// Why a CPU cannot run the kernel: one not started through PSCI (a
/// spin-table CPU) cannot be started by it.
pub fn cpu_unusable(cpu: &Cpu) -> Option<&'static str> {
    match cpu.property("enable-method").and_then(|p| p.as_str()) {
        Some("psci") | None => None,
        Some(_) => Some("not started through PSCI"),
    }
}

/// Reads aarch64's part of the machine description.
pub fn read_machine(fdt: &Fdt) -> MachineInfo {
    let psci_smc = fdt
        .find_compatible(&["arm,psci-1.0", "arm,psci-0.2", "arm,psci"])
        .and_then(|n| n.property("method"))
        .and_then(|p| p.as_str())
        == Some("smc");
    let mut timebase_hz = super::cpu::counter_hz();
    if timebase_hz == 0 {
        timebase_hz = fdt
            .find_compatible(&["arm,armv8-timer"])
            .and_then(|n| n.property("clock-frequency"))
            .and_then(|p| u32_prop(p.value))
            .unwrap_or(0) as u64;
    }
    MachineInfo { psci_smc, timebase_hz, timer: dt_timer(fdt) }
}

/// The virtual timer's interrupt: the third of the timer node's four
/// (secure, non-secure, virtual, hypervisor), a PPI with its trigger
/// flags (1, 2: edge; 4, 8: level).
fn dt_timer(fdt: &Fdt) -> Option<TimerIrq> {
    let node = fdt.find_compatible(&["arm,armv8-timer", "arm,armv7-timer"])?;
    let cells = node.property("interrupts")?.value;
    let spec = cells.get(24..36)?;
    let cell = |i: usize| u32_prop(&spec[4 * i..]);
    if cell(0)? != 1 {
        return None;
    }
    TimerIrq::checked(16 + cell(1)?, cell(2)? & 3 != 0, "the device tree")
}
