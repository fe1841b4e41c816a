//! The Power State Coordination Interface: the firmware (QEMU's own, or
//! ARM Trusted Firmware) starts and stops CPUs and the machine. Calls go
//! through HVC or SMC, as the device tree's /psci `method` says.

use core::sync::atomic::{AtomicBool, Ordering};

const CPU_ON: u64 = 0xc400_0003;
const AFFINITY_INFO: u64 = 0xc400_0004;
const SYSTEM_OFF: u64 = 0x8400_0008;
const SYSTEM_RESET: u64 = 0x8400_0009;

pub const ALREADY_ON: isize = -4;
pub const ON_PENDING: isize = -5;

static USE_SMC: AtomicBool = AtomicBool::new(false);

/// Chooses the conduit (`method = "smc"` or "hvc").
pub fn set_method_smc(smc: bool) {
    USE_SMC.store(smc, Ordering::Relaxed);
}

fn call(func: u64, a1: u64, a2: u64, a3: u64) -> isize {
    let ret: u64;
    // SAFETY: a PSCI call: the firmware reads the function id and
    // arguments in x0-x3 and answers in x0 (SMCCC; x0-x17 may change).
    unsafe {
        if USE_SMC.load(Ordering::Relaxed) {
            core::arch::asm!("smc #0", inout("x0") func => ret, inout("x1") a1 => _, inout("x2") a2 => _, inout("x3") a3 => _,
                out("x4") _, out("x5") _, out("x6") _, out("x7") _, out("x8") _, out("x9") _, out("x10") _, out("x11") _,
                out("x12") _, out("x13") _, out("x14") _, out("x15") _, out("x16") _, out("x17") _, options(nostack));
        } else {
            core::arch::asm!("hvc #0", inout("x0") func => ret, inout("x1") a1 => _, inout("x2") a2 => _, inout("x3") a3 => _,
                out("x4") _, out("x5") _, out("x6") _, out("x7") _, out("x8") _, out("x9") _, out("x10") _, out("x11") _,
                out("x12") _, out("x13") _, out("x14") _, out("x15") _, out("x16") _, out("x17") _, options(nostack));
        }
    }
    ret as i64 as isize
}

/// Starts the CPU with affinity `mpidr` at physical address `entry` with
/// x0 = `context`.
pub fn cpu_on(mpidr: u64, entry: u64, context: u64) -> isize {
    call(CPU_ON, mpidr, entry, context)
}

/// 0 on, 1 off, 2 on pending; negative: an error.
pub fn affinity_info(mpidr: u64) -> isize {
    call(AFFINITY_INFO, mpidr, 0, 0)
}

pub fn system_off() -> isize {
    call(SYSTEM_OFF, 0, 0, 0)
}

pub fn system_reset() -> isize {
    call(SYSTEM_RESET, 0, 0, 0)
}
