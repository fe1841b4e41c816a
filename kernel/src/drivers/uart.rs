//! The 16550-compatible UART of QEMU virt: the console. Output is polled (a
//! byte at a time, waiting for the transmit holding register), input raises
//! an interrupt through the PLIC.

use crate::arch::mmio::Mmio;
use spin::Once;

const RBR_THR: usize = 0; // receive buffer / transmit holding
const IER: usize = 1; // interrupt enable
const LSR: usize = 5; // line status
const LSR_DATA_READY: u8 = 1 << 0;
const LSR_THR_EMPTY: u8 = 1 << 5;
const LSR_TX_IDLE: u8 = 1 << 6;

static UART: Once<Mmio> = Once::new();

/// # Safety
/// `pa` must be the base of a 16550 UART (from the device tree).
pub unsafe fn init(pa: u64) {
    // SAFETY: forwarded from the caller's contract.
    let regs = unsafe { Mmio::new(pa) };
    // OpenSBI has configured the line; resetting the FIFOs here would drop
    // input the host piped in before the kernel started.
    regs.write8(IER, 0x01); // interrupt on received data
    UART.call_once(|| regs);
}

pub fn put_byte(b: u8) {
    if let Some(u) = UART.get() {
        while u.read8(LSR) & LSR_THR_EMPTY == 0 {
            core::hint::spin_loop();
        }
        u.write8(RBR_THR, b);
    }
}

/// Turns the received-data interrupt on or off (flow control for a program
/// that does not read its input).
pub fn set_receive_interrupt(on: bool) {
    if let Some(u) = UART.get() {
        u.write8(IER, on as u8);
    }
}

/// A received byte, if one is waiting.
pub fn get_byte() -> Option<u8> {
    let u = UART.get()?;
    if u.read8(LSR) & LSR_DATA_READY != 0 {
        Some(u.read8(RBR_THR))
    } else {
        None
    }
}

/// Waits until every byte written has left the transmitter, so that
/// powering off loses nothing.
pub fn drain() {
    if let Some(u) = UART.get() {
        while u.read8(LSR) & LSR_TX_IDLE == 0 {
            core::hint::spin_loop();
        }
    }
}
