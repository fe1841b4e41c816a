//! IPIs on aarch64: the CPU defines none of its own. They are the
//! interrupt controller's (a GIC's software-generated interrupts, sent by
//! drivers/irqchip), which is why this answers false.

/// The CPU has no IPI mechanism: the controller sends them.
pub fn send_ipi(_hwid: usize) -> bool {
    false
}
