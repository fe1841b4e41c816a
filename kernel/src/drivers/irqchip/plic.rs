//! The RISC-V platform-level interrupt controller (PLIC): it routes
//! device lines (the UART's, virtio's, UIO devices') to the S-mode context
//! of a hart, which claims and completes them. Which context is a hart's
//! S-mode comes from the node's `interrupts-extended` (QEMU virt's is
//! 2·hart + 1, the HiFive Unleashed's 2·hart, as its hart 0 has an M-mode
//! context only). IPIs are not the PLIC's: the SBI sends them (arch/).
//!
//! The enable bits of 32 lines share one word per context and the PLIC has
//! no set/clear registers, so changing a line is a read-modify-write: two
//! harts changing lines of the same word at once could each write back the
//! other's old bit and lose an enable (that line's interrupts would then
//! stop for good). `enables` serialises every enable change; it is the
//! last class of the lock order (sync/lockorder.rs, LockClass::IrqEnables)
//! and nothing is taken under it.

use super::IrqChip;
use crate::arch::mmio::Mmio;
use crate::arch::InterruptSink;
use gometal_core::drivers::irqchip::ControllerNode;
use crate::sync::{Lock, LockClass};
use alloc::boxed::Box;
use alloc::vec::Vec;
use gometal_core::drivers::irqchip::{Family, PLIC_SOURCES};

/// The interrupt cause a hart's S-mode external interrupt has: the
/// contexts wired to it are the harts' S-mode contexts.
const S_EXTERNAL_INTERRUPT: u32 = 9;

struct Plic {
    regs: Mmio,
    /// (hart id, context) of each hart's S-mode.
    s_contexts: Vec<(usize, usize)>,
    enables: Lock<()>,
}

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

/// Starts the PLIC `node` describes.
pub fn probe(node: &ControllerNode) -> Result<&'static dyn IrqChip, &'static str> {
    let &(base, _) = node.regs.first().ok_or("no register block")?;
    let s_contexts: Vec<(usize, usize)> = node
        .cpu_outputs
        .iter()
        .enumerate()
        .filter_map(|(ctx, &(hart, cause))| Some((hart?, ctx)).filter(|_| cause == S_EXTERNAL_INTERRUPT))
        .collect();
    // SAFETY: the register block of a device-tree node whose compatible
    // names a PLIC.
    let regs = unsafe { Mmio::new(base) };
    Ok(Box::leak(Box::new(Plic { regs, s_contexts, enables: Lock::new(LockClass::IrqEnables, ()) })))
}

impl Plic {
    /// The context of a hart's S-mode (2·hart + 1, QEMU virt's layout, for
    /// a hart the device tree did not wire up).
    fn s_context(&self, hartid: usize) -> usize {
        self.s_contexts.iter().find(|&&(h, _)| h == hartid).map_or(2 * hartid + 1, |&(_, ctx)| ctx)
    }

    /// Sets or clears `irq`'s enable bit in context `ctx`. Lines the PLIC
    /// cannot have (0, or beyond 1023: a bad device tree) are ignored.
    fn change_enable(&self, irq: u32, ctx: usize, on: bool) {
        if !(1..PLIC_SOURCES).contains(&irq) {
            return;
        }
        let word = enable(ctx) + 4 * (irq as usize / 32);
        let bit = 1 << (irq % 32);
        let _guard = self.enables.lock();
        let v = self.regs.read32(word);
        self.regs.write32(word, if on { v | bit } else { v & !bit });
    }

    fn claim(&self, ctx: usize) -> Option<u32> {
        match self.regs.read32(claim_register(ctx)) {
            0 => None,
            irq => Some(irq),
        }
    }
}

impl IrqChip for Plic {
    fn name(&self) -> &'static str {
        "PLIC"
    }

    fn family(&self) -> Family {
        Family::Plic
    }

    fn route(&self, irq: u32, hartid: usize) {
        if !(1..PLIC_SOURCES).contains(&irq) {
            return;
        }
        let ctx = self.s_context(hartid);
        self.regs.write32(priority(irq), 1);
        self.change_enable(irq, ctx, true);
        self.regs.write32(threshold(ctx), 0);
    }

    /// Enabled at the new hart first, so no interrupt is lost in between
    /// (one raised meanwhile is claimed by whichever hart sees it first;
    /// the PLIC hands it to one of them only).
    fn reroute(&self, irq: u32, from: usize, to: usize) {
        if from == to {
            return;
        }
        self.change_enable(irq, self.s_context(to), true);
        self.regs.write32(threshold(self.s_context(to)), 0);
        self.change_enable(irq, self.s_context(from), false);
    }

    fn set_enabled(&self, irq: u32, hartid: usize, on: bool) {
        self.change_enable(irq, self.s_context(hartid), on);
    }

    /// Claims every line the PLIC has for this hart, one at a time.
    fn take_pending(&self, hartid: usize, sink: &mut dyn InterruptSink) {
        let ctx = self.s_context(hartid);
        while let Some(line) = self.claim(ctx) {
            sink.device(line);
            self.regs.write32(claim_register(ctx), line);
        }
    }
}
