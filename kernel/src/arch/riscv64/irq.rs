//! Interrupts on riscv64: the platform-level interrupt controller (PLIC),
//! which routes device lines (the UART's, virtio's, UIO devices') to the
//! S-mode context of a hart, and IPIs through the SBI.
//!
//! The enable bits of 32 lines share one word per context and the PLIC has
//! no set/clear registers, so changing a line is a read-modify-write: two
//! harts changing lines of the same word at once could each write back the
//! other's old bit and lose an enable (that line's interrupts would then
//! stop for good). `ENABLES` serialises every enable change; it is the last
//! class of the lock order (sched/mod.rs; LockClass::IrqEnables) and nothing is taken under it.

use crate::arch::mmio::Mmio;
use crate::sync::{Lock, LockClass};
use alloc::vec::Vec;
use spin::Once;

static PLIC: Once<Mmio> = Once::new();

/// The controller's name in /proc/interrupts.
pub const IRQ_CHIP: &str = "PLIC";
static ENABLES: Lock<()> = Lock::new(LockClass::IrqEnables, ());

/// Interrupt sources a PLIC can have (0 means "none").
const MAX_SOURCES: u32 = 1024;

fn priority(irq: u32) -> usize {
    4 * irq as usize
}
fn enable(ctx: usize) -> usize {
    0x2000 + 0x80 * ctx
}
fn threshold(ctx: usize) -> usize {
    0x20_0000 + 0x1000 * ctx
}
fn claim_register(ctx: usize) -> usize {
    threshold(ctx) + 4
}

/// Each hart's S-mode context, by hart id (from the device tree's
/// interrupts-extended: QEMU virt's is 2·hart + 1, the HiFive Unleashed's
/// 2·hart, as its hart 0 has an M-mode context only).
static S_CONTEXTS: Once<Vec<(usize, usize)>> = Once::new();

/// The PLIC context of a hart's S-mode (2·hart + 1, QEMU virt's layout,
/// for a hart the device tree did not wire up).
fn s_context(hartid: usize) -> usize {
    let table = S_CONTEXTS.get().map(|t| t.as_slice()).unwrap_or(&[]);
    table.iter().find(|&&(h, _)| h == hartid).map(|&(_, ctx)| ctx).unwrap_or(2 * hartid + 1)
}

/// # Safety
/// `pa` must be the base of the PLIC (from the device tree), and
/// `s_contexts` the (hart, context) pairs of its S-mode contexts.
pub unsafe fn init(pa: u64, s_contexts: &[(usize, usize)]) {
    S_CONTEXTS.call_once(|| s_contexts.to_vec());
    // SAFETY: forwarded from the caller's contract.
    PLIC.call_once(|| unsafe { Mmio::new(pa) });
}

/// Sets or clears `irq`'s enable bit in context `ctx` under `ENABLES`.
/// Lines the PLIC cannot have (0, or beyond 1023: a bad device tree) are
/// ignored.
fn change_enable(p: &Mmio, irq: u32, ctx: usize, on: bool) {
    if irq == 0 || irq >= MAX_SOURCES {
        return;
    }
    let word = enable(ctx) + 4 * (irq as usize / 32);
    let bit = 1 << (irq % 32);
    let _guard = ENABLES.lock();
    let v = p.read32(word);
    p.write32(word, if on { v | bit } else { v & !bit });
}

/// Routes `irq` to `hartid`'s S-mode.
pub fn route_irq(irq: u32, hartid: usize) {
    let Some(p) = PLIC.get() else { return };
    if irq == 0 || irq >= MAX_SOURCES {
        return;
    }
    let ctx = s_context(hartid);
    p.write32(priority(irq), 1);
    change_enable(p, irq, ctx, true);
    p.write32(threshold(ctx), 0);
}

/// Moves `irq` from `from`'s S-mode to `to`'s (`/proc/irq/N/smp_affinity`):
/// enabled at the new hart first, so no interrupt is lost in between (one
/// raised meanwhile is claimed by whichever hart sees it first; the PLIC
/// hands it to one of them only).
pub fn reroute_irq(irq: u32, from: usize, to: usize) {
    let Some(p) = PLIC.get() else { return };
    if from == to {
        return;
    }
    change_enable(p, irq, s_context(to), true);
    p.write32(threshold(s_context(to)), 0);
    change_enable(p, irq, s_context(from), false);
}

/// The highest-priority pending interrupt for `hartid`, if any.
pub fn claim(hartid: usize) -> Option<u32> {
    let p = PLIC.get()?;
    match p.read32(claim_register(s_context(hartid))) {
        0 => None,
        irq => Some(irq),
    }
}

pub fn complete(irq: u32, hartid: usize) {
    if let Some(p) = PLIC.get() {
        p.write32(claim_register(s_context(hartid)), irq);
    }
}

/// Masks (false) or unmasks (true) `irq` for `hartid`'s S-mode: how UIO
/// silences a platform device whose interrupt the program has not yet
/// acknowledged.
pub fn set_irq_enabled(irq: u32, hartid: usize, on: bool) {
    let Some(p) = PLIC.get() else { return };
    change_enable(p, irq, s_context(hartid), on);
}

/// Sends a software interrupt to hart `hartid` (SBI IPI extension).
pub fn send_ipi(hartid: usize) {
    let _ = sbi_rt::send_ipi(sbi_rt::HartMask::from_mask_base(1, hartid));
}

/// The PLIC line a device-tree `interrupts` specifier names (one cell).
pub fn decode_dt_interrupt(cells: &[u32]) -> Option<u32> {
    match cells {
        [line] if *line != 0 && *line < MAX_SOURCES => Some(*line),
        _ => None,
    }
}
