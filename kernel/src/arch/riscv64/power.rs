//! How the machine ends: QEMU's "sifive,test0" finisher ends QEMU with an
//! exit status (how the program's status reaches the host); without one,
//! the SBI's system reset extension (SRST: shutdown, "system failure" as
//! the reason for a non-zero status; or a cold reboot). A firmware that
//! cannot do what was asked (QEMU's sifive_u has no power-off device)
//! says so with an error, and the hart then halts.

use crate::arch::mmio::Mmio;
use spin::Once;

const FINISHER_FAIL: u32 = 0x3333;
const FINISHER_PASS: u32 = 0x5555;
const FINISHER_RESET: u32 = 0x7777;

static TEST_DEVICE: Once<Mmio> = Once::new();

/// # Safety
/// `pa` must be the base of a sifive,test0 device (from the device tree).
pub unsafe fn init(pa: u64) {
    // SAFETY: forwarded from the caller's contract.
    TEST_DEVICE.call_once(|| unsafe { Mmio::new(pa) });
}

/// Whether power_off's status reaches the host whole (QEMU's exit code).
pub fn exit_status_reaches_host() -> bool {
    TEST_DEVICE.get().is_some()
}

/// Ends the machine; QEMU exits with `status` (0..=255) where the test
/// device is. Returns only if nothing could power it off: the SBI's error.
pub fn power_off(status: u32) -> isize {
    let status = status & 0xff;
    if let Some(dev) = TEST_DEVICE.get() {
        let word = if status == 0 { FINISHER_PASS } else { (status << 16) | FINISHER_FAIL };
        dev.write32(0, word);
    }
    let ret = if status == 0 {
        sbi_rt::system_reset(sbi_rt::Shutdown, sbi_rt::NoReason)
    } else {
        sbi_rt::system_reset(sbi_rt::Shutdown, sbi_rt::SystemFailure)
    };
    ret.error as isize
}

/// Resets the machine. Returns only if it could not: the SBI's error.
pub fn reboot() -> isize {
    if let Some(dev) = TEST_DEVICE.get() {
        dev.write32(0, FINISHER_RESET);
    }
    sbi_rt::system_reset(sbi_rt::ColdReboot, sbi_rt::NoReason).error as isize
}

/// Stops this hart for good (the others are already stopped).
pub fn halt() -> ! {
    loop {
        super::cpu::wait_for_interrupt();
    }
}

/// Writes a byte on the firmware's console (the SBI's legacy putchar,
/// which every OpenSBI has): the kernel's output before a UART driver is
/// set up, or on a machine whose UART it does not drive.
pub fn firmware_console_put(b: u8) {
    #[allow(deprecated)]
    let _ = sbi_rt::legacy::console_putchar(b as usize);
}
