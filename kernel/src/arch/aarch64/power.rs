//! How the machine ends: Arm semihosting's SYS_EXIT ends QEMU with the
//! exit status (how the program's status reaches the host, when the host
//! enabled semihosting and said so on the command line); otherwise PSCI
//! SYSTEM_OFF or SYSTEM_RESET. The CPU then halts.

use super::psci;
use core::sync::atomic::{AtomicBool, Ordering};

static SEMIHOSTING: AtomicBool = AtomicBool::new(false);

/// The host enabled semihosting (`gometal.semihosting` on the command
/// line, machine.rs): `hlt #0xf000` reaches QEMU instead of faulting.
pub fn enable_semihosting() {
    SEMIHOSTING.store(true, Ordering::Relaxed);
}

/// Whether power_off's status reaches the host whole (QEMU's exit code).
pub fn exit_status_reaches_host() -> bool {
    SEMIHOSTING.load(Ordering::Relaxed)
}

/// ADP_Stopped_ApplicationExit: SYS_EXIT's reason for an ordinary exit.
const ADP_STOPPED_APPLICATION_EXIT: u64 = 0x20026;
const SYS_EXIT: u64 = 0x18;

/// Ends the machine; QEMU exits with `status` (0..=255) under
/// semihosting. Returns only if nothing could power it off: PSCI's error.
pub fn power_off(status: u32) -> isize {
    if exit_status_reaches_host() {
        let block = [ADP_STOPPED_APPLICATION_EXIT, (status & 0xff) as u64];
        // SAFETY: the semihosting call reads the two-word block and ends
        // QEMU; enabled by the host (see enable_semihosting). Where QEMU
        // was not started with -semihosting, its hlt is an undefined
        // instruction, which kernel_trap recognises and says so.
        unsafe { semihosting_call(SYS_EXIT, block.as_ptr()) };
    }
    psci::system_off()
}

// The semihosting call: the operation in x0, its block in x1, the result
// in x0. Its own function, so its one instruction has a known address.
core::arch::global_asm!(
    ".pushsection .text.semihosting, \"ax\"",
    ".global semihosting_call",
    ".type semihosting_call, %function",
    "semihosting_call:",
    "    hlt #0xf000",
    "    ret",
    ".popsection",
);

extern "C" {
    fn semihosting_call(op: u64, block: *const u64) -> u64;
}

/// Whether an exception at `pc` is the semihosting call.
pub fn is_semihosting_call(pc: u64) -> bool {
    pc == semihosting_call as *const () as u64
}

/// PSCI SYSTEM_OFF, then a halt: the end when semihosting failed.
pub fn power_off_without_semihosting() -> ! {
    SEMIHOSTING.store(false, Ordering::Relaxed);
    psci::system_off();
    halt()
}

/// Resets the machine. Returns only if it could not: PSCI's error.
pub fn reboot() -> isize {
    psci::system_reset()
}

/// Stops this CPU for good (the others are already stopped).
pub fn halt() -> ! {
    loop {
        super::cpu::wait_for_interrupt();
    }
}

/// PSCI has no console: the image's early console stands in
/// (earlycon.rs).
pub fn firmware_console_put(b: u8) {
    super::earlycon::put_byte(b);
}
