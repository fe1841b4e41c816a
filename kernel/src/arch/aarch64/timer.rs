//! The per-CPU timer: the EL1 virtual timer (CNTV), which raises a PPI at
//! the GIC when the virtual counter reaches CNTV_CVAL_EL0. Which PPI, and
//! whether level or edge triggered, is the firmware's to say (the device
//! tree's /timer, ACPI's GTDT); INTID 27, level, where it says nothing.
//! The controller's driver disarms it when it fires (`timer_fired`); the next `set_timer` arms it
//! again.

use super::sysreg::write_sysreg;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// CNTV_CTL_EL0.ENABLE (IMASK clear).
const ENABLE: u64 = 1;

/// The virtual timer's architected interrupt (a PPI, INTID 16 + 11).
pub const DEFAULT_INTID: u32 = 27;

static INTID: AtomicU32 = AtomicU32::new(DEFAULT_INTID);
static EDGE: AtomicBool = AtomicBool::new(false);

/// The virtual timer's interrupt as the firmware describes it.
#[derive(Clone, Copy, Debug)]
pub struct TimerIrq {
    /// The GIC INTID (a PPI: 16..32).
    pub intid: u32,
    /// Edge triggered (else level).
    pub edge: bool,
    /// Where it was read ("the GTDT", "the device tree").
    pub source: &'static str,
}

impl TimerIrq {
    /// The description, if it names a PPI (the only kind of line a
    /// per-CPU timer can have).
    pub fn checked(intid: u32, edge: bool, source: &'static str) -> Option<TimerIrq> {
        (16..32).contains(&intid).then_some(TimerIrq { intid, edge, source })
    }
}

impl core::fmt::Display for TimerIrq {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        let kind = if self.edge { "edge" } else { "level" };
        write!(f, "timer: the virtual timer's interrupt is INTID {}, {kind}-triggered, from {}", self.intid, self.source)
    }
}

/// Uses the firmware's description of the timer's interrupt (before the
/// interrupt controller is set up).
pub fn configure(irq: Option<TimerIrq>) {
    if let Some(t) = irq {
        INTID.store(t.intid, Ordering::Relaxed);
        EDGE.store(t.edge, Ordering::Relaxed);
    }
}

/// The timer's INTID.
pub fn intid() -> u32 {
    INTID.load(Ordering::Relaxed)
}

/// Whether the timer's PPI is edge triggered.
pub fn edge_triggered() -> bool {
    EDGE.load(Ordering::Relaxed)
}

/// The line the timer raises at the interrupt controller, and whether it
/// is edge triggered (the controller's driver enables and acknowledges it).
pub fn timer_line() -> Option<(u32, bool)> {
    Some((intid(), edge_triggered()))
}

/// The controller took the timer's interrupt: stop it until the next
/// `set_timer` (the line is level triggered where the firmware says so).
pub fn timer_fired() {
    disarm();
}

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
