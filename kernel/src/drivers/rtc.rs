//! The Goldfish real-time clock of QEMU virt: nanoseconds since the Unix
//! epoch, read once at boot to anchor CLOCK_REALTIME.

use crate::arch::mmio::Mmio;

const TIME_LOW: usize = 0x00;
const TIME_HIGH: usize = 0x04;

/// # Safety
/// `pa` must be the base of a google,goldfish-rtc device.
pub unsafe fn read_ns(pa: u64) -> u64 {
    // SAFETY: forwarded from the caller's contract.
    let regs = unsafe { Mmio::new(pa) };
    // Reading TIME_LOW latches TIME_HIGH.
    let low = regs.read32(TIME_LOW) as u64;
    let high = regs.read32(TIME_HIGH) as u64;
    (high << 32) | low
}
