//! The firmware console on arm64: PSCI has none, so output before the
//! UART driver (or on a machine whose console it cannot drive) goes to the
//! image's early console — the UART entry.S reports boot failures on,
//! which `gometal build -earlycon` names and QEMU virt's PL011 is by
//! default (the record at `early_console`, Linux's earlycon=). A kernel
//! panic before the device tree is read is then seen, not silent. The
//! UART is the firmware's, already set up; only its data register and
//! busy flag are used, and a UART that never gets ready is given up on.

use crate::arch::mmio::Mmio;

/// entry.S's kinds (`EARLYCON_*`).
const PL011: u64 = 1;
const UART_8250: u64 = 2;
const UART_8250_32: u64 = 3;
/// Polls of the busy flag before a byte is dropped.
const PATIENCE: u32 = 0x10_0000;

extern "C" {
    /// "GMEARLYC", kind, physical address, reserved (entry.S).
    static early_console: [u64; 4];
}

/// PL011: UARTFR, and its transmit-FIFO-full bit.
const PL011_FR: usize = 0x18;
const PL011_TXFF: u32 = 1 << 5;
/// 16550: the line status register (index 5), and its holding-register-empty bit.
const LSR: usize = 5;
const LSR_THRE: u32 = 1 << 5;

/// Writes `b` to the early console, if the image names one.
pub fn put_byte(b: u8) {
    // SAFETY: entry.S's record, four words in the image's read-only data,
    // written only by the host before boot.
    let [_, kind, pa, _] = unsafe { early_console };
    if pa == 0 || crate::arch::device_virt(pa).is_none() || !(PL011..=UART_8250_32).contains(&kind) {
        return;
    }
    // SAFETY: the UART the image names as its early console, of the kind
    // the record gives (its register layout follows).
    let regs = unsafe { Mmio::new(pa) };
    let ready = || match kind {
        PL011 => regs.read32(PL011_FR) & PL011_TXFF == 0,
        UART_8250 => regs.read8(LSR) as u32 & LSR_THRE != 0,
        _ => regs.read32(LSR << 2) & LSR_THRE != 0,
    };
    for _ in 0..PATIENCE {
        if ready() {
            break;
        }
        core::hint::spin_loop();
    }
    match kind {
        UART_8250 => regs.write8(0, b),
        _ => regs.write32(0, b as u32),
    }
}
