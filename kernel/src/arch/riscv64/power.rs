//! Powering off with an exit status: QEMU's "sifive,test0" finisher ends
//! QEMU with a status (how the program's exit status reaches the host);
//! without one, the SBI's system reset extension (shutdown, with "system
//! failure" as the reason for a non-zero status).

use crate::arch::mmio::Mmio;
use spin::Once;

const FINISHER_FAIL: u32 = 0x3333;
const FINISHER_PASS: u32 = 0x5555;

static TEST_DEVICE: Once<Mmio> = Once::new();

/// # Safety
/// `pa` must be the base of a sifive,test0 device (from the device tree).
pub unsafe fn init(pa: u64) {
    // SAFETY: forwarded from the caller's contract.
    TEST_DEVICE.call_once(|| unsafe { Mmio::new(pa) });
}

/// Ends the machine; QEMU exits with `status` (0..=255).
pub fn power_off(status: u32) -> ! {
    let status = status & 0xff;
    if let Some(dev) = TEST_DEVICE.get() {
        let word = if status == 0 { FINISHER_PASS } else { (status << 16) | FINISHER_FAIL };
        dev.write32(0, word);
    }
    // No finisher (or it did not stop us): ask the SBI, then stop here.
    if status == 0 {
        let _ = sbi_rt::system_reset(sbi_rt::Shutdown, sbi_rt::NoReason);
    } else {
        let _ = sbi_rt::system_reset(sbi_rt::Shutdown, sbi_rt::SystemFailure);
    }
    loop {
        super::cpu::wait_for_interrupt();
    }
}
