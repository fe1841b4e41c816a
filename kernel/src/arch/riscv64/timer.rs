//! The per-hart timer: the SBI timer extension arms this hart's
//! supervisor timer interrupt for a `time` value. The interrupt stays
//! pending until the next `set_timer`.

/// Arms this hart's timer for counter value `ticks` (u64::MAX: never).
pub fn set_timer(ticks: u64) {
    sbi_rt::set_timer(ticks);
}
