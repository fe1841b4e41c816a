//! The real-time clocks of QEMU's virt machines, read once at boot to
//! anchor CLOCK_REALTIME: the Goldfish RTC (riscv64 virt: nanoseconds since
//! the Unix epoch) and the Arm PL031 (arm64 virt: seconds).

use crate::arch::mmio::Mmio;
use crate::boot::machine::RtcKind as Kind;

const TIME_LOW: usize = 0x00;
const TIME_HIGH: usize = 0x04;
const PL031_DR: usize = 0x00;

/// The time now, in nanoseconds since the Unix epoch.
///
/// # Safety
/// `pa` must be the base of an RTC of kind `kind`.
pub unsafe fn read_ns(pa: u64, kind: Kind) -> u64 {
    // SAFETY: forwarded from the caller's contract.
    let regs = unsafe { Mmio::new(pa) };
    match kind {
        Kind::Goldfish => {
            // Reading TIME_LOW latches TIME_HIGH.
            let low = regs.read32(TIME_LOW) as u64;
            let high = regs.read32(TIME_HIGH) as u64;
            (high << 32) | low
        }
        Kind::Pl031 => regs.read32(PL031_DR) as u64 * 1_000_000_000,
    }
}
