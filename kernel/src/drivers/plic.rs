//! The platform-level interrupt controller: routes device interrupts (the
//! UART's) to the S-mode context of the boot hart.

use super::mmio::Mmio;
use spin::Once;

static PLIC: Once<Mmio> = Once::new();

fn priority(irq: u32) -> usize {
    4 * irq as usize
}
fn enable(ctx: usize) -> usize {
    0x2000 + 0x80 * ctx
}
fn threshold(ctx: usize) -> usize {
    0x20_0000 + 0x1000 * ctx
}
fn claim(ctx: usize) -> usize {
    threshold(ctx) + 4
}

/// The PLIC context of a hart's S-mode on QEMU virt (M-mode is 2·hart).
fn s_context(hartid: usize) -> usize {
    2 * hartid + 1
}

/// # Safety
/// `pa` must be the base of the PLIC (from the device tree).
pub unsafe fn init(pa: u64) {
    // SAFETY: forwarded from the caller's contract.
    PLIC.call_once(|| unsafe { Mmio::new(pa) });
}

/// Routes `irq` to `hartid`'s S-mode.
pub fn route(irq: u32, hartid: usize) {
    let Some(p) = PLIC.get() else { return };
    let ctx = s_context(hartid);
    p.write32(priority(irq), 1);
    let word = enable(ctx) + 4 * (irq as usize / 32);
    p.write32(word, p.read32(word) | 1 << (irq % 32));
    p.write32(threshold(ctx), 0);
}

/// The highest-priority pending interrupt for `hartid`, if any.
pub fn claim_irq(hartid: usize) -> Option<u32> {
    let p = PLIC.get()?;
    match p.read32(claim(s_context(hartid))) {
        0 => None,
        irq => Some(irq),
    }
}

pub fn complete(irq: u32, hartid: usize) {
    if let Some(p) = PLIC.get() {
        p.write32(claim(s_context(hartid)), irq);
    }
}

/// Masks (false) or unmasks (true) `irq` for `hartid`'s S-mode: how UIO
/// silences a platform device whose interrupt the program has not yet
/// acknowledged.
pub fn set_enabled(irq: u32, hartid: usize, on: bool) {
    let Some(p) = PLIC.get() else { return };
    let word = enable(s_context(hartid)) + 4 * (irq as usize / 32);
    let bit = 1 << (irq % 32);
    let v = p.read32(word);
    p.write32(word, if on { v | bit } else { v & !bit });
}
