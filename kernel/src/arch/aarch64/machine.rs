//! What aarch64 reads from the device tree for itself: the GIC (version,
//! distributor, redistributors or CPU interface), the PSCI conduit (HVC or
//! SMC), and the counter frequency (CNTFRQ_EL0, or the timer node's
//! clock-frequency where firmware left CNTFRQ unset), and the virtual
//! timer's interrupt (the timer node's third `interrupts` entry). The generic machine
//! description (boot/) keeps this beside what every architecture reads.

use super::irq::GicInfo;
use super::timer::TimerIrq;
use fdt::standard_nodes::Cpu;
use fdt::Fdt;

#[derive(Debug, Default)]
pub struct MachineInfo {
    pub gic: Option<GicInfo>,
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

fn regs(fdt: &Fdt, compatible: &[&str]) -> Option<([u64; 2], u64)> {
    let node = fdt.find_compatible(compatible)?;
    let mut r = node.reg()?;
    let first = r.next()?;
    let second = r.next()?;
    Some(([first.starting_address as u64, second.starting_address as u64], first.size.unwrap_or(0) as u64))
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
    let gic = if let Some(([dist, redist], _)) = regs(fdt, &["arm,gic-v3"]) {
        let stride = fdt
            .find_compatible(&["arm,gic-v3"])
            .and_then(|n| n.property("redistributor-stride"))
            .and_then(|p| u32_prop(p.value))
            .map_or(0x20000, |s| s as u64);
        Some(GicInfo::V3 { dist, redist, redist_stride: stride })
    } else {
        regs(fdt, &["arm,cortex-a15-gic", "arm,gic-400", "arm,cortex-a9-gic"]).map(|([dist, cpu], _)| GicInfo::V2 { dist, cpu })
    };
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
    MachineInfo { gic, psci_smc, timebase_hz, timer: dt_timer(fdt) }
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
