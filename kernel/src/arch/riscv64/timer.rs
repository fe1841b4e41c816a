//! The per-hart timer: the SBI timer extension arms this hart's
//! supervisor timer interrupt for a `time` value. The interrupt stays
//! pending until the next `set_timer`.

/// The hart's timer interrupt is its own (a cause of its trap, not a line
/// of the PLIC): none at the interrupt controller.
pub fn timer_line() -> Option<(u32, bool)> {
    None
}

/// Nothing to stop: the interrupt stays pending until the next `set_timer`.
pub fn timer_fired() {}

/// Arms this hart's timer for counter value `ticks` (u64::MAX: never).
pub fn set_timer(ticks: u64) {
    sbi_rt::set_timer(ticks);
}
