//! Interrupt affinity at run time, Linux's way: /proc/irq/L/smp_affinity
//! (a hex mask of CPUs) and smp_affinity_list (`0-3`) for each interrupt
//! line L that an exposed device uses. Reading shows the mask last written (at
//! boot: the CPU `@HART` or the round-robin default chose); writing a mask
//! moves the line to the first online CPU in it, as Linux's interrupt
//! controller drivers do (irqchip::reroute_irq: enabled at the new CPU before
//! it is disabled at the old one). Devices sharing a line (PCI INTx) move together. Formats
//! and the choice of CPU: kernel/core/src/uio/irqaffinity.rs. /proc/interrupts
//! lists the UIO devices' interrupts per CPU, so a program (and the boot
//! test) can see where they were taken.

use super::{all_devices, UioDevice};
use super::file::{tree_node, UioNode};
use crate::fs::tree;
use crate::sched::cpu;
use crate::sync::{Lock, LockClass};
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use gometal_core::linux::errno::{Errno, EIO};
use gometal_core::uio::irqaffinity;

/// Serialises moves: two writers moving one line must not each disable
/// the other's new CPU.
static MOVES: Lock<()> = Lock::new(LockClass::IrqAffinity, ());

/// Adds /proc/irq/L/{smp_affinity,smp_affinity_list} for each line used by
/// `devices`, each opening as the first device on that line.
pub fn publish(devices: &[Arc<UioDevice>]) {
    if let Some(first) = devices.iter().find(|d| d.irq.is_some()) {
        tree::add_at(b"/proc/interrupts", tree_node(first.index as u8, UioNode::Interrupts));
    }
    for d in devices {
        let Some(irq) = d.irq else { continue };
        if devices.iter().take_while(|o| o.index != d.index).any(|o| o.irq == Some(irq)) {
            continue;
        }
        let n = d.index as u8;
        tree::add_at(format!("/proc/irq/{irq}/smp_affinity").as_bytes(), tree_node(n, UioNode::Affinity));
        tree::add_at(format!("/proc/irq/{irq}/smp_affinity_list").as_bytes(), tree_node(n, UioNode::AffinityList));
    }
}

/// The text of `node` for `dev`'s line.
pub fn show(dev: &UioDevice, node: UioNode) -> String {
    let mask = dev.affinity.load(Ordering::Acquire);
    match node {
        UioNode::AffinityList => irqaffinity::format_list(mask),
        _ => irqaffinity::format_mask(mask, cpu::online_count()),
    }
}

/// A write of `data` to `node`: EINVAL for a malformed mask or one naming
/// no online CPU (Linux's answers); the whole write is consumed.
pub fn store(dev: &UioDevice, node: UioNode, data: &[u8]) -> Result<usize, Errno> {
    let Some(irq) = dev.irq else { return Err(EIO) };
    let cpus = cpu::online_count();
    let mask = match node {
        UioNode::AffinityList => irqaffinity::parse_list(data, cpus)?,
        _ => irqaffinity::parse_mask(data, cpus)?,
    };
    let to = cpu::cpu(irqaffinity::target(mask, cpus)).hwid();
    let _guard = MOVES.lock();
    for d in all_devices().iter().filter(|d| d.irq == Some(irq)) {
        let from = d.hwid.swap(to, Ordering::AcqRel);
        d.affinity.store(mask, Ordering::Release);
        crate::drivers::irqchip::reroute_irq(irq, from, to);
    }
    Ok(data.len())
}

/// /proc/interrupts in Linux's layout: a header of CPUn columns, then a
/// row per device: `line: counts per CPU  controller line kind  name`.
pub fn interrupts() -> String {
    let cpus = cpu::online_count();
    let mut out = String::from("    ");
    for h in 0..cpus {
        out.push_str(&format!(" {:>10}", format!("CPU{h}")));
    }
    out.push('\n');
    for d in all_devices() {
        let Some(irq) = d.irq else { continue };
        out.push_str(&format!("{irq:>3}:"));
        for c in d.per_cpu.iter().take(cpus) {
            out.push_str(&format!(" {:>10}", c.load(Ordering::Relaxed)));
        }
        out.push_str(&format!("  {} {irq:>3} Level     {}\n", crate::drivers::irqchip::name(), d.name));
    }
    out
}
