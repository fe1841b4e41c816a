//! Real-time clocks, read once at boot to anchor CLOCK_REALTIME, chosen
//! by `compatible` among the machine's nodes: the Goldfish RTC (QEMU's
//! riscv64 virt: nanoseconds since the Unix epoch) and the Arm PL031
//! (QEMU's arm64 virt: seconds). A machine with neither starts its clock
//! at 1970, as Linux does without an RTC.

use crate::arch::mmio::Mmio;
use crate::boot::devnodes::PlatformNode;

const GOLDFISH_TIME_LOW: usize = 0x00;
const GOLDFISH_TIME_HIGH: usize = 0x04;
const PL031_DR: usize = 0x00;

/// A clock driver: the `compatible` strings it serves and how it reads
/// the time (nanoseconds since the epoch) from the registers.
struct Driver {
    compatible: &'static [&'static str],
    read_ns: fn(&Mmio) -> u64,
}

const DRIVERS: &[Driver] = &[
    Driver { compatible: &["google,goldfish-rtc"], read_ns: goldfish_ns },
    Driver { compatible: &["arm,pl031"], read_ns: pl031_ns },
];

fn goldfish_ns(regs: &Mmio) -> u64 {
    // Reading TIME_LOW latches TIME_HIGH.
    let low = regs.read32(GOLDFISH_TIME_LOW) as u64;
    let high = regs.read32(GOLDFISH_TIME_HIGH) as u64;
    (high << 32) | low
}

fn pl031_ns(regs: &Mmio) -> u64 {
    regs.read32(PL031_DR) as u64 * 1_000_000_000
}

/// The time now from the first clock a driver here serves, in
/// nanoseconds since the Unix epoch, and that clock's node name.
pub fn read_ns(nodes: &[PlatformNode]) -> Option<(u64, &str)> {
    nodes.iter().find_map(|node| {
        let driver = DRIVERS.iter().find(|d| node.is(d.compatible))?;
        // SAFETY: the register block of a node whose compatible names this
        // clock.
        let regs = unsafe { Mmio::new(node.base) };
        Some(((driver.read_ns)(&regs), node.name.as_str()))
    })
}
