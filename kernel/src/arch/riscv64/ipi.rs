//! IPIs on riscv64: the SBI's IPI extension raises another hart's
//! supervisor software interrupt (trap.rs takes it). The PLIC carries
//! device lines only (drivers/irqchip).

/// Sends a software interrupt to hart `hartid`; true: the CPU (through
/// its firmware) sends IPIs itself.
pub fn send_ipi(hartid: usize) -> bool {
    let _ = sbi_rt::send_ipi(sbi_rt::HartMask::from_mask_base(1, hartid));
    true
}
