//! The per-CPU timer: the EL1 virtual timer (CNTV), which raises PPI 27 at
//! the GIC when the virtual counter reaches CNTV_CVAL_EL0. irq.rs disarms
//! it when it fires; the next `set_timer` arms it again.

use super::sysreg::write_sysreg;

/// CNTV_CTL_EL0.ENABLE (IMASK clear).
const ENABLE: u64 = 1;

/// The virtual timer's interrupt (a PPI, INTID 16 + 11).
pub const TIMER_INTID: u32 = 27;

/// Arms this CPU's timer for counter value `ticks` (u64::MAX: never).
pub fn set_timer(ticks: u64) {
    if ticks == u64::MAX {
        disarm();
        return;
    }
    // Writing the timer's own registers only changes when it fires.
    write_sysreg!("cntv_cval_el0", ticks);
    write_sysreg!("cntv_ctl_el0", ENABLE);
}

/// Stops this CPU's timer (its interrupt line drops).
pub fn disarm() {
    write_sysreg!("cntv_ctl_el0", 0);
}
